package page

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/safetext"
	"github.com/badged/badged/internal/web"
)

// shownFacts are the facts of an award the page, the certificate, the preview and the embed show. Each comes from
// the verified credential when it states it, and from the issuer's records (the assertion and badge rows)
// otherwise; the flags say which, so that none ever presents a record as signed. The badge's description,
// criteria, skills and image are the achievement as signed: an edit of the badge after issue changes none of them.
type shownFacts struct {
	Recipient, Badge, Issuer string
	IssuedAt                 time.Time
	ExpiresAt                *time.Time // nil: does not expire
	// Signed: badge (its name, description, criteria, skills and image), issuer and dates are the verified
	// credential's.
	Signed          bool
	RecipientSigned bool // the recipient's name is too (credentials signed before names were are not)
	Description     string
	Criteria        []db.Criterion // signed criteria are the narrative's lines, without a category
	Skills          []string
	// Image is the badge image's media id, uuid.Nil when there is none this service serves (a signed image URL
	// that is not one of its own media URLs).
	Image          uuid.UUID
	Evidence       []credential.Evidence
	EvidenceSigned bool // the evidence is the verified credential's (which may state none)
}

// shownFactsOf picks each fact from signed (nil when the signature did not verify) or else from the row;
// mediaBase is the service's public media URL prefix (BaseURL + "/media/"), under which the signed image is one of
// its own uploads.
func shownFactsOf(row db.GetBadgePageRow, signed *credential.Facts, mediaBase string) shownFacts {
	a := row.Assertion
	f := shownFacts{Recipient: a.RecipientName, Badge: row.BadgeName, Issuer: row.OrgName, IssuedAt: a.IssuedAt, ExpiresAt: a.ExpiredAt,
		Description: row.BadgeDescription, Image: row.BadgeImageID}
	_ = json.Unmarshal(row.BadgeCriteria, &f.Criteria) // written by the badge handlers from the same type
	var skills []db.Skill
	_ = json.Unmarshal(row.BadgeSkills, &skills)
	for _, s := range skills {
		f.Skills = append(f.Skills, cmpOr(s.SkillName, s.ServiceSkillID))
	}
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
	f.Description, f.Criteria, f.Skills = signed.AchievementDescription, nil, signed.AchievementSkills
	for _, line := range strings.Split(signed.AchievementCriteria, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			f.Criteria = append(f.Criteria, db.Criterion{Value: line})
		}
	}
	f.Image = mediaID(signed.AchievementImage, mediaBase)
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

// shownFacts are the facts of row that the page and what is drawn from it show, after the assessment as.
func (h *Handler) shownFacts(row db.GetBadgePageRow, as assessment) shownFacts {
	return shownFactsOf(row, as.signed, h.urls.BaseURL+"/media/")
}

// mediaID is the media id of an image URL under mediaBase (mediaBase + id + "/" + variant, as the sign step writes
// the achievement's image), uuid.Nil for any other URL.
func mediaID(imageURL, mediaBase string) uuid.UUID {
	rest, ok := strings.CutPrefix(imageURL, mediaBase)
	if !ok {
		return uuid.Nil
	}
	id, variant, ok := strings.Cut(rest, "/")
	u, err := web.ParseUUID(id)
	if !ok || err != nil || variant == "" || strings.ContainsAny(variant, "/?#") {
		return uuid.Nil
	}
	return u
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
