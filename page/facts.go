package page

import (
	"encoding/json"
	"net/url"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/safetext"
)

// shownFacts are the facts of an award the page and the certificate show. Each comes from the verified credential
// when it states it, and from the issuer's records (the assertion row) otherwise; the flags say which, so that
// neither ever presents a record as signed.
type shownFacts struct {
	Recipient, Badge, Issuer string
	IssuedAt                 time.Time
	ExpiresAt                *time.Time // nil: does not expire
	Signed                   bool       // badge, issuer and dates are the verified credential's
	RecipientSigned          bool       // the recipient's name is too (credentials signed before names were are not)
	Evidence                 []credential.Evidence
	EvidenceSigned           bool // the evidence is the verified credential's (which may state none)
}

// shownFactsOf picks each fact from signed (nil when the signature did not verify) or else from the row.
func shownFactsOf(row db.GetBadgePageRow, signed *credential.Facts) shownFacts {
	a := row.Assertion
	f := shownFacts{Recipient: a.RecipientName, Badge: row.BadgeName, Issuer: row.OrgName, IssuedAt: a.IssuedAt, ExpiresAt: a.ExpiredAt}
	if len(a.Evidence) > 0 {
		_ = json.Unmarshal(a.Evidence, &f.Evidence) // written by the issuance handler from the same type
	}
	if a.Mode == apikey.ModeTest {
		f.Issuer = credential.TestName(row.OrgName) // as the credential names its test issuer
	}
	if signed == nil {
		return f
	}
	f.Signed, f.IssuedAt, f.ExpiresAt = true, signed.ValidFrom, nil
	if !signed.ValidUntil.IsZero() {
		f.ExpiresAt = &signed.ValidUntil
	}
	if signed.AchievementName != "" {
		f.Badge = safetext.Display(signed.AchievementName)
	}
	if signed.IssuerName != "" {
		f.Issuer = safetext.Display(signed.IssuerName)
	}
	if signed.RecipientName != "" {
		f.Recipient, f.RecipientSigned = safetext.Display(signed.RecipientName), true
	}
	// Evidence is signed or absent: a verified credential without evidence shows none, whatever the records say.
	f.Evidence, f.EvidenceSigned = nil, true
	for _, e := range signed.Evidence {
		f.Evidence = append(f.Evidence, credential.Evidence{URL: e.URL, Name: safetext.Display(e.Name),
			Narrative: e.Narrative, Genre: safetext.Display(e.Genre)})
	}
	return f
}

// pageEvidence is one evidence item as the page shows it; URL is empty unless it is an https link.
type pageEvidence struct{ Name, URL, Genre, Narrative string }

// evidenceItems turns the shown evidence into the page's items: an item without a name is named by its link.
func evidenceItems(ev []credential.Evidence) []pageEvidence {
	out := make([]pageEvidence, 0, len(ev))
	for _, e := range ev {
		it := pageEvidence{Name: e.Name, Genre: e.Genre, Narrative: e.Narrative}
		if u, err := url.Parse(e.URL); err == nil && u.Scheme == "https" && u.Host != "" {
			it.URL = u.String()
		}
		if it.Name == "" {
			it.Name = e.URL
		}
		out = append(out, it)
	}
	return out
}

// factRows are the page's details list in two groups: what the credential signs and what only the issuer's
// records say (the program, the serial number, a revocation's date and reason, and whatever the credential does
// not state or could not be verified for).
func (h *Handler) factRows(row db.GetBadgePageRow, f shownFacts, lang string) (signed, records []pageField) {
	a := row.Assertion
	add := func(isSigned bool, key, value string) {
		if isSigned {
			signed = append(signed, pageField{msg(lang, key), value})
		} else {
			records = append(records, pageField{msg(lang, key), value})
		}
	}
	add(f.RecipientSigned, "field.recipient", f.Recipient)
	add(f.Signed, "field.badge", f.Badge)
	add(f.Signed, "field.issuer", f.Issuer)
	add(f.Signed, "field.issuedOn", formatDate(lang, f.IssuedAt, h.loc))
	expires := msg(lang, "field.noExpiry")
	if f.ExpiresAt != nil {
		expires = formatDateTime(lang, *f.ExpiresAt, h.loc)
	}
	add(f.Signed, "field.expiresOn", expires)
	add(false, "field.program", row.ProgramName)
	add(false, "field.serial", a.SerialNumber)
	if a.State == string(db.AssertionRevoked) && a.RevokedAt != nil {
		add(false, "field.revokedOn", formatDate(lang, *a.RevokedAt, h.loc))
		if a.RevocationReason != nil {
			add(false, "field.reason", *a.RevocationReason)
		}
	}
	return signed, records
}
