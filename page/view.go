package page

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/safetext"
)

// verdict is what the page says first, in plain words. Its kind picks the colour and the HTTP status.
type verdict struct {
	Kind     string // valid, revoked, expired, replaced, invalid, or test (a test-mode credential)
	Title    string
	Detail   string
	Link     string // the replacement's page, for a replaced badge
	LinkText string
}

// pageLink is a link the page offers (a download, the language switch).
type pageLink = pagekit.Link

// pageCheck is a technical check as the page shows it.
type pageCheck struct {
	Name, Result, Detail string
	OK                   bool
}

// pageField is one row of the details list.
type pageField struct{ Label, Value string }

// pageView is everything the badge page template shows; every string is already in the page's language.
type pageView struct {
	Lang, Title, Description  string
	Verdict                   verdict
	BadgeName, BadgeText      string
	BadgeImage, BadgeAlt      string // same-origin path of the badge image; "" when none can be shown
	AchievementSigned         bool   // the badge's name, description, image, criteria and skills are the credential's
	AwardedTo                 string
	SignedFields              []pageField // the facts the verified credential states
	RecordFields              []pageField // the facts only the issuer's records state
	Criteria                  []pageField // label = category, value = narrative
	Skills                    []string
	Evidence                  []pageEvidence
	EvidenceSigned            bool // the evidence section says it is signed, as the details list does
	IssuerName, IssuerURL     string
	IssuerLogo, IssuerLogoAlt string
	LinkedIn                  string       // empty: not offered (the badge is not valid)
	Shares                    []pageShare  // the share buttons (share.go)
	CopyURL                   string       // the link offered for copying
	Embed                     string       // the embed snippet's HTML, shown as text to copy
	share                     shareContent // what a share says; the counting redirect (share_redirect.go) answers with it
	Downloads                 []pageLink
	Languages                 []pageLink
	Checks                    []pageCheck
	CredentialURL             string
	Footer                    string
	Meta                      pageMeta
}

// pageMeta are the Open Graph and Twitter card values of the page.
type pageMeta struct {
	Title, Description, Image, ImageAlt, URL, Locale string
}

// T is the page's message of key in its language; templates call it for fixed labels.
func (v pageView) T(key string, args ...any) string { return msg(v.Lang, key, args...) }

// Chrome is what the shared head, header and footer show (pagekit): the issuer as the brand.
func (v pageView) Chrome() pagekit.Chrome {
	return pagekit.Chrome{Lang: v.Lang, Title: v.Title, Skip: v.T("page.skip"), LanguagesLabel: v.T("page.languages"),
		BrandName: v.IssuerName, BrandLogo: v.IssuerLogo, BrandLogoAlt: v.IssuerLogoAlt, Languages: v.Languages, Footer: v.Footer}
}

// Source is the label of a section's source: signed in the credential, or the issuer's records.
func (v pageView) Source(signed bool) string {
	if signed {
		return v.T("facts.signed")
	}
	return v.T("facts.records")
}

// buildPage turns an assertion and its assessment into the page's view in lang. The names and dates it shows are
// the verified credential's where it states them (shownFacts), and the details list says which are.
func (h *Handler) buildPage(row db.GetBadgePageRow, as assessment, lang string) pageView {
	displayNames(&row)
	a := row.Assertion
	issuerName := row.OrgName
	if a.Mode == apikey.ModeTest {
		issuerName = credential.TestName(row.OrgName) // as the credential names its test issuer
	}
	f := h.shownFacts(row, as)
	v := pageView{Lang: lang, BadgeName: f.Badge, BadgeText: f.Description, BadgeAlt: msg(lang, "page.badgeImage", f.Badge),
		AwardedTo: msg(lang, "page.awardedTo", f.Recipient), IssuerName: issuerName, AchievementSigned: f.Signed,
		CredentialURL: h.urls.CredentialID(a.ID), Footer: msg(lang, "page.footer")}
	if f.Image != uuid.Nil {
		v.BadgeImage = "/media/" + f.Image.String() + "/medium"
	}
	if !f.RecipientSigned {
		v.AwardedTo = msg(lang, "page.awardedToRecords", f.Recipient)
	}
	v.Title = msg(lang, "page.title", f.Badge, f.Recipient)
	for _, c := range as.checks {
		args := make([]any, len(c.Args))
		for i, arg := range c.Args {
			switch t := arg.(type) {
			case time.Time:
				arg = formatDate(lang, t, h.loc)
			case dateTime:
				arg = formatDateTime(lang, time.Time(t), h.loc)
			}
			args[i] = arg
		}
		pc := pageCheck{Name: msg(lang, c.Name), OK: c.OK, Detail: msg(lang, c.Detail, args...), Result: msg(lang, "checks.failed")}
		if c.OK {
			pc.Result = msg(lang, "checks.passed")
		}
		v.Checks = append(v.Checks, pc)
	}
	v.Verdict = h.pageVerdict(row, as, f, lang)
	v.SignedFields, v.RecordFields = h.factRows(row, f, lang)
	v.Evidence, v.EvidenceSigned = evidenceItems(f.Evidence), f.EvidenceSigned

	for _, c := range f.Criteria {
		label := ""
		if c.Category != "" { // signed criteria are a narrative: the categories are the badge's records
			label = msg(lang, "criteria."+c.Category)
		}
		v.Criteria = append(v.Criteria, pageField{label, c.Value})
	}
	for _, s := range f.Skills {
		if name := safetext.Display(s); name != "" {
			v.Skills = append(v.Skills, name)
		}
	}
	if row.OrgWebsiteUrl != nil {
		v.IssuerURL = *row.OrgWebsiteUrl
	}
	if row.OrgLogoMediaID != nil {
		v.IssuerLogo, v.IssuerLogoAlt = "/media/"+row.OrgLogoMediaID.String()+"/small", msg(lang, "page.issuerLogo", row.OrgName)
	}
	v.Downloads = h.pageDownloads(a, lang)
	linkedInAdd := ""
	if v.Verdict.Kind == "valid" {
		linkedInAdd = linkedInURL(f, a.SerialNumber, h.urls.VerifyURL(a.ID), h.loc)
	}
	h.addSharing(&v, a.ID, f, linkedInAdd)
	v.Description = v.Verdict.Title + ". " + truncateRunes(f.Description, 200)
	// The preview image is the social card of the badge in its present state (preview.go), in the page's language.
	v.Meta = pageMeta{Title: v.Title, Description: v.Description, URL: h.urls.VerifyURL(a.ID),
		Image: h.previewURL(a.ID, lang), ImageAlt: msg(lang, "embed.alt", f.Badge, f.Recipient, f.Issuer),
		Locale: pagekit.OGLocale(lang)}
	v.Languages = pagekit.LanguageLinks(lang, nil)
	return v
}

// displayNames makes the names the page puts inside its own sentences, title and tags one plain line
// (safetext.Display): the API refuses control and bidirectional override characters in names, but a name stored
// before that rule could otherwise reverse or split the text around it. Descriptions and criteria keep their line
// breaks and bidirectional controls; the page isolates them in blocks of their own (style.html, unicode-bidi).
func displayNames(row *db.GetBadgePageRow) {
	row.BadgeName, row.OrgName, row.ProgramName = safetext.Display(row.BadgeName), safetext.Display(row.OrgName),
		safetext.Display(row.ProgramName)
	row.Assertion.RecipientName = safetext.Display(row.Assertion.RecipientName)
	if r := row.Assertion.RevocationReason; r != nil {
		shown := safetext.Display(*r)
		row.Assertion.RevocationReason = &shown
	}
}

// pageVerdict decides the page's first sentence (and the certificate's stamp). A replacement or a revocation
// says what the issuer did; a failed check means the page cannot vouch for the badge; an expiry only dates it.
// A valid badge's sentence names the recipient as signed only when the credential signs the name.
func (h *Handler) pageVerdict(row db.GetBadgePageRow, as assessment, f shownFacts, lang string) verdict {
	a := row.Assertion
	switch {
	case a.Mode == apikey.ModeTest:
		// First, whatever else holds: a test credential is never a real badge, valid or not.
		return verdict{Kind: "test", Title: msg(lang, "verdict.test"), Detail: msg(lang, "verdict.testDetail", row.OrgName, a.RecipientName)}
	case a.State == string(db.AssertionReissued):
		v := verdict{Kind: "replaced", Title: msg(lang, "verdict.replaced"), Detail: msg(lang, "verdict.replacedDetail")}
		if a.ReplacedBy != nil {
			v.Detail, v.Link, v.LinkText = msg(lang, "verdict.replacedBy"), h.urls.VerifyURL(*a.ReplacedBy), msg(lang, "verdict.replacementLink")
		}
		return v
	case a.State == string(db.AssertionRevoked) || as.failed("check.status") && a.RevokedAt != nil:
		at := a.UpdatedAt
		if a.RevokedAt != nil {
			at = *a.RevokedAt
		}
		v := verdict{Kind: "revoked", Title: msg(lang, "verdict.revoked", formatDate(lang, at, h.loc)), Detail: msg(lang, "verdict.revokedNoWhy")}
		if a.RevocationReason != nil {
			v.Detail = msg(lang, "verdict.revokedBecause", *a.RevocationReason)
		}
		return v
	case as.failed("check.signature") || as.failed("check.status") || as.failed("check.anchor"):
		return verdict{Kind: "invalid", Title: msg(lang, "verdict.invalid"), Detail: msg(lang, "verdict.invalidDetail")}
	case as.failed("check.expiry") && f.ExpiresAt != nil:
		return verdict{Kind: "expired", Title: msg(lang, "verdict.expired", formatDate(lang, *f.ExpiresAt, h.loc)),
			Detail: msg(lang, "verdict.expiredDetail", formatDate(lang, f.IssuedAt, h.loc), formatDateTime(lang, *f.ExpiresAt, h.loc))}
	}
	key := "verdict.validDetail"
	if !f.RecipientSigned {
		key = "verdict.validDetailRecords"
	}
	return verdict{Kind: "valid", Title: msg(lang, "verdict.valid"), Detail: msg(lang, key, f.Recipient, f.Issuer, formatDate(lang, f.IssuedAt, h.loc))}
}

// pageDownloads are the artifacts of an assertion the page links: what exists of baked image, JSON and receipt.
// Not the PDF certificate: its link carries the recipient's token, and the page is public (a shared URL would
// hand the certificate to anyone); the recipient has the link in the mail, the integrator the API route.
func (h *Handler) pageDownloads(a db.Assertion, lang string) []pageLink {
	u := h.urls
	var out []pageLink
	if a.BakedKey != nil && a.BakedContentType != nil {
		kind := strings.ToUpper(strings.TrimPrefix(strings.TrimSuffix(*a.BakedContentType, "+xml"), "image/"))
		out = append(out, pageLink{Label: msg(lang, "download.image", kind), URL: u.BaseURL + "/credentials/" + a.ID.String() + "/image"})
	}
	out = append(out, pageLink{Label: msg(lang, "download.json"), URL: u.CredentialID(a.ID)})
	if a.AnchorTxHash != nil {
		out = append(out, pageLink{Label: msg(lang, "download.receipt"), URL: u.ReceiptURL(a.ID)})
	}
	return out
}

func cmpOr(ps ...*string) string {
	for _, p := range ps {
		if p != nil && *p != "" {
			return *p
		}
	}
	return ""
}

func truncateRunes(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
