package earner

import (
	"net/http"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/stats"
)

// profileBadge is one badge of a public profile.
type profileBadge struct {
	Name, Issuer, Image, Date, DateISO, PageURL string
}

type profileView struct {
	frame
	Handle string
	Badges []profileBadge
}

// profile is the public profile /earners/{handle}: only when its earner made it public, and only the badges they
// show (a private badge page is not linked). An unknown, malformed or private handle is the same 404 page.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) error {
	handle := r.PathValue("handle")
	if !handleRE.MatchString(handle) {
		return h.notice(w, r, http.StatusNotFound, "notfound", "err_notfound", "err_notfound_lead", "", "")
	}
	p, err := h.d.DB.GetPublicProfile(r.Context(), &handle)
	if db.IsNotFound(err) {
		return h.notice(w, r, http.StatusNotFound, "notfound", "err_notfound", "err_notfound_lead", "", "")
	}
	if err != nil {
		return err
	}
	rows, err := h.d.DB.ListProfileCredentials(r.Context(), p.Email)
	if err != nil {
		return err
	}
	f := h.frame(r, handle)
	v := profileView{frame: f, Handle: handle}
	now := h.d.Clock()
	for _, row := range rows {
		if SectionOf(row.ApiVersion, row.State, row.ExpiredAt, now) != Active {
			continue
		}
		issued := row.IssuedAt.In(h.d.Location).Format("2006-01-02")
		b := profileBadge{Name: row.BadgeName, Issuer: row.OrgName, Image: "/media/" + row.BadgeImageID.String() + "/medium",
			Date: issued, DateISO: issued}
		if !row.PagePrivate {
			b.PageURL = h.d.URLs.VerifyURL(row.ID)
		}
		v.Badges = append(v.Badges, b)
	}
	if err := h.render(w, http.StatusOK, "profile", v); err != nil {
		return err
	}
	h.d.Tally.Add(stats.EarnerProfileView)
	return nil
}
