package earner

import (
	"net/http"
	"strconv"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
)

// badgeView is one credential in the collection.
type badgeView struct {
	T                                          map[string]string
	CSRF                                       string
	ID, Name, Issuer, Image, Date, DateISO     string
	Status, PageURL, JSONURL, BakedURL, PDFURL string
	ShareURL                                   string
	Show, Private                              bool
}

// collectionView is the signed-in earner's page.
type collectionView struct {
	frame
	Email, CSRF, Error string
	Active, Inactive   []badgeView
	Handle, ProfileURL string
	Public             bool
	Prev, Next         string // the pager's links; "" when none
}

// pageSize is how many badges one page of the collection shows: an earner with a thousand badges gets a page
// that renders in a few milliseconds, and the pager for the rest.
const pageSize = 100

// load reads the earner's credentials and sorts them into the display filter's sections.
func (h *Handler) load(r *http.Request, email string) (active, inactive []db.ListEarnerCredentialsRow, err error) {
	rows, err := h.d.DB.ListEarnerCredentials(r.Context(), db.ListEarnerCredentialsParams{Email: email, MaxRows: maxCredentials})
	if err != nil {
		return nil, nil, err
	}
	now := h.d.Clock()
	for _, row := range rows {
		switch SectionOf(row.ApiVersion, row.State, row.ExpiredAt, now) {
		case Active:
			active = append(active, row)
		case Inactive:
			inactive = append(inactive, row)
		}
	}
	return active, inactive, nil
}

// collection renders the earner's page with status (a form's error in formErr, a key of the texts).
func (h *Handler) collection(w http.ResponseWriter, r *http.Request, sess signin.Session, status int, formErr string) error {
	privateHeaders(w)
	active, inactive, err := h.load(r, sess.Email)
	if err != nil {
		return err
	}
	f := h.frame(r, "")
	v := collectionView{frame: f, Email: sess.Email, CSRF: sess.CSRF}
	if formErr != "" {
		v.Error = f.T[formErr]
	}
	// One page of the whole list, active first, each row keeping its section.
	n := pageNumber(r)
	from, to := min((n-1)*pageSize, len(active)+len(inactive)), min(n*pageSize, len(active)+len(inactive))
	for i := from; i < to; i++ {
		if i < len(active) {
			v.Active = append(v.Active, h.badgeView(active[i], f, sess.CSRF))
		} else {
			v.Inactive = append(v.Inactive, h.badgeView(inactive[i-len(active)], f, sess.CSRF))
		}
	}
	if n > 1 {
		v.Prev = Prefix + "?page=" + strconv.Itoa(n-1) + "&lang=" + f.Lang
	}
	if to < len(active)+len(inactive) {
		v.Next = Prefix + "?page=" + strconv.Itoa(n+1) + "&lang=" + f.Lang
	}
	p, err := h.d.DB.GetEarnerProfile(r.Context(), sess.Email)
	if err != nil && !db.IsNotFound(err) {
		return err
	}
	if p.Handle != nil {
		v.Handle, v.Public = *p.Handle, p.Public
		if p.Public {
			v.ProfileURL = h.d.URLs.BaseURL + "/earners/" + *p.Handle
		}
	}
	if err := h.render(w, status, "collection", v); err != nil {
		return err
	}
	h.d.Tally.Add(stats.EarnerCollectionView)
	return nil
}

// pageNumber is the ?page= of the collection: 1 unless a number from 1 to 1000.
func pageNumber(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > 1000 {
		return 1
	}
	return n
}

func (h *Handler) badgeView(row db.ListEarnerCredentialsRow, f frame, csrf string) badgeView {
	u := h.d.URLs
	id := row.ID.String()
	issued := row.IssuedAt.In(h.d.Location)
	status := row.State
	if SectionOf(row.ApiVersion, row.State, row.ExpiredAt, h.d.Clock()) == Inactive && row.State != string(db.AssertionRevoked) {
		status = string(db.AssertionExpired)
	}
	v := badgeView{T: f.T, CSRF: csrf, ID: id, Name: row.BadgeName, Issuer: row.OrgName,
		Image: "/media/" + row.BadgeImageID.String() + "/medium", Date: issued.Format("2006-01-02"), DateISO: issued.Format("2006-01-02"),
		Status: f.T["status_"+status], PageURL: u.VerifyURL(row.ID), JSONURL: Prefix + "/badges/" + id + "/credential.json",
		PDFURL: u.CertificateURL(row.ID, row.CertificateToken), Show: row.ShowOnProfile, Private: row.PagePrivate}
	if row.BakedKey != nil {
		v.BakedURL = u.BaseURL + "/credentials/" + id + "/image"
	}
	if status == string(db.AssertionIssued) || status == string(db.AssertionReceived) {
		v.ShareURL = u.BaseURL + "/share/" + id + "/linkedin-add"
	}
	return v
}
