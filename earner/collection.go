package earner

import (
	"net/http"

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
}

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
	for _, row := range active {
		v.Active = append(v.Active, h.badgeView(row, f, sess.CSRF))
	}
	for _, row := range inactive {
		v.Inactive = append(v.Inactive, h.badgeView(row, f, sess.CSRF))
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
