package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/badged/badged/internal/errcode"
)

// BuildInput is what an Open Badges 3.0 credential says.
type BuildInput struct {
	ID          string    // credential URL (where the credential is served), required
	Issuer      Issuer    // the organization
	ValidFrom   time.Time // issue time, required
	ValidUntil  time.Time // expiry from the badge; zero means none
	Name        string    // credential name; defaults to the achievement name
	Recipient   Recipient
	Achievement Achievement
	Status      *StatusEntry // revocation entry; nil leaves credentialStatus out
	Evidence    []Evidence   // OB 3.0 evidence of the award; none leaves evidence out
}

// Evidence is one item of OB 3.0 evidence (the Evidence class: id, narrative, name, genre), as the issuer recorded
// it for the recipient. Every field is optional in OB 3.0; URL becomes the item's id. It is also the stored form
// (assertions.evidence) and the API's.
type Evidence struct {
	URL       string `json:"url,omitempty"`
	Name      string `json:"name,omitempty"`
	Narrative string `json:"narrative,omitempty"`
	Genre     string `json:"genre,omitempty"`
}

// Issuer is the issuer Profile. ID is the HTTPS URL or did:web that serves the controller document.
type Issuer struct {
	ID, Name, URL string
	ImageURL      string // optional
	Email         string // optional
	Description   string // optional; a test issuer says there what it is
}

// Recipient identifies the earner by an id (URL or DID) and/or an email, which is only ever written hashed.
type Recipient struct {
	ID    string
	Email string
	Salt  string // salt of the email hash; a random one is made when empty
	// Name is the earner's name as the issuer knows it, signed in plain text so that what a page or certificate
	// shows under "issued to" is a fact of the credential (NameIdentity); empty leaves it out. It identifies no
	// one on its own: a recipient still needs an id or an email.
	Name string
}

// Achievement is the badge.
type Achievement struct {
	ID, Name, Description string
	CriteriaNarrative     string
	ImageURL              string // optional
	Skills                []Skill
	Tags                  []string
}

// Skill is an alignment to a skill framework; a skill without a URL is written as a tag.
type Skill struct {
	Name, URL, Description, Framework, Code string
}

// StatusEntry places the credential in a Bitstring Status List credential.
type StatusEntry struct {
	ListCredential string // URL of the status list credential
	Index          int
}

// Build returns an OpenBadgeCredential (VC Data Model 2.0, OB 3.0.3 context), unsigned. Missing required
// fields carry MISSING_INFO, a recipient without id or email RECIPIENT_IDENTITY_MISSING.
func Build(in BuildInput) (map[string]any, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	issuer := map[string]any{"id": in.Issuer.ID, "type": []any{"Profile"}, "name": in.Issuer.Name, "url": in.Issuer.URL}
	if in.Issuer.ImageURL != "" {
		issuer["image"] = map[string]any{"id": in.Issuer.ImageURL, "type": "Image"}
	}
	if in.Issuer.Email != "" {
		issuer["email"] = in.Issuer.Email
	}
	setIf(issuer, "description", in.Issuer.Description)
	ach := AchievementJSON(in.Achievement)
	subject := map[string]any{"type": []any{"AchievementSubject"}, "achievement": ach}
	if in.Recipient.ID != "" {
		subject["id"] = in.Recipient.ID
	}
	var identifiers []any
	if in.Recipient.Email != "" {
		salt := in.Recipient.Salt
		if salt == "" {
			var b [16]byte
			if _, err := rand.Read(b[:]); err != nil {
				return nil, errcode.Wrap(errcode.CredentialSerializationFailed, "make identity salt", err)
			}
			salt = hex.EncodeToString(b[:])
		}
		identifiers = append(identifiers, map[string]any{
			"type":         "IdentityObject",
			"identityHash": HashIdentity(in.Recipient.Email, salt),
			"identityType": "emailAddress",
			"hashed":       true,
			"salt":         salt,
		})
	}
	if name := strings.TrimSpace(in.Recipient.Name); name != "" {
		identifiers = append(identifiers, NameIdentity(name))
	}
	if len(identifiers) > 0 {
		subject["identifier"] = identifiers
	}
	name := in.Name
	if name == "" {
		name = in.Achievement.Name
	}
	cred := map[string]any{
		"@context":          []any{ContextCredentialsV2, ContextOB303},
		"id":                in.ID,
		"type":              []any{"VerifiableCredential", "OpenBadgeCredential"},
		"issuer":            issuer,
		"validFrom":         formatTime(in.ValidFrom),
		"name":              name,
		"credentialSubject": subject,
	}
	if !in.ValidUntil.IsZero() {
		cred["validUntil"] = formatTime(in.ValidUntil)
	}
	if len(in.Evidence) > 0 {
		items := make([]any, len(in.Evidence))
		for i, e := range in.Evidence {
			m := map[string]any{"type": []any{"Evidence"}}
			setIf(m, "id", e.URL)
			setIf(m, "name", e.Name)
			setIf(m, "narrative", e.Narrative)
			setIf(m, "genre", e.Genre)
			items[i] = m
		}
		cred["evidence"] = items
	}
	if in.Status != nil {
		cred["credentialStatus"] = StatusListEntry(in.Status.ListCredential, in.Status.Index)
	}
	return cred, nil
}

// AchievementJSON is the OB 3.0 Achievement of a as every credential embeds it (credentialSubject.achievement).
// AchievementDocument is the same object standing alone; Build writes this one, so the two never differ.
func AchievementJSON(a Achievement) map[string]any {
	ach := map[string]any{
		"id":          a.ID,
		"type":        []any{"Achievement"},
		"name":        a.Name,
		"description": a.Description,
		"criteria":    map[string]any{"narrative": a.CriteriaNarrative},
	}
	if a.ImageURL != "" {
		ach["image"] = map[string]any{"id": a.ImageURL, "type": "Image"}
	}
	var alignments, tags []any
	for _, s := range a.Skills {
		if s.URL == "" {
			tags = append(tags, s.Name)
			continue
		}
		a := map[string]any{"type": []any{"Alignment"}, "targetName": s.Name, "targetUrl": s.URL}
		setIf(a, "targetDescription", s.Description)
		setIf(a, "targetFramework", s.Framework)
		setIf(a, "targetCode", s.Code)
		alignments = append(alignments, a)
	}
	for _, t := range a.Tags {
		tags = append(tags, t)
	}
	if len(alignments) > 0 {
		ach["alignment"] = alignments
	}
	if len(tags) > 0 {
		ach["tag"] = tags
	}
	return ach
}

// AchievementDocument is the Achievement served at its id (/achievements/{badgeId}) to a machine: AchievementJSON
// with the @context of the credentials that embed it, so a verifier that dereferences the id reads the same terms.
func AchievementDocument(a Achievement) map[string]any {
	doc := AchievementJSON(a)
	doc["@context"] = []any{ContextCredentialsV2, ContextOB303}
	return doc
}

// HashIdentity returns the OB identityHash of an email: "sha256$" + hex(SHA-256(email + salt)), the email
// trimmed and lower-cased so that the recipient can prove it however they type it.
func HashIdentity(email, salt string) string {
	h := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email)) + salt))
	return "sha256$" + hex.EncodeToString(h[:])
}

// NameIdentity is the OB 3.0 IdentityObject that names the earner: identityType "name", not hashed, the name in
// identityHash, which the spec allows to hold "the plaintext value" when hashed is false. It is the spec's own
// place for a recipient's name (IdentifierTypeEnum lists "name"; AchievementSubject has no name property), so any
// OB 3.0 verifier or wallet reads it and the 1EdTech schema accepts it. Plain, because a person reads it: the
// badge page already shows the name to anyone holding the link, so signing it discloses nothing new.
func NameIdentity(name string) map[string]any {
	return map[string]any{"type": "IdentityObject", "identityHash": name, "identityType": "name", "hashed": false}
}

// StatusListEntry returns a BitstringStatusListEntry for revocation at index of the list credential.
func StatusListEntry(listCredential string, index int) map[string]any {
	return map[string]any{
		"id":                   listCredential + "#" + strconv.Itoa(index),
		"type":                 "BitstringStatusListEntry",
		"statusPurpose":        StatusPurposeRevocation,
		"statusListIndex":      strconv.Itoa(index),
		"statusListCredential": listCredential,
	}
}

func (in *BuildInput) validate() error {
	missing := func(what string) error { return errcode.New(errcode.MissingInfo, "credential needs "+what) }
	for _, f := range []struct{ v, name string }{
		{in.ID, "an id"}, {in.Issuer.ID, "an issuer id"}, {in.Issuer.Name, "an issuer name"},
		{in.Issuer.URL, "an issuer url"}, {in.Achievement.ID, "an achievement id"},
		{in.Achievement.Name, "an achievement name"}, {in.Achievement.Description, "an achievement description"},
		{in.Achievement.CriteriaNarrative, "a criteria narrative"},
	} {
		if strings.TrimSpace(f.v) == "" {
			return missing(f.name)
		}
	}
	if in.ValidFrom.IsZero() {
		return missing("validFrom")
	}
	if in.Recipient.ID == "" && strings.TrimSpace(in.Recipient.Email) == "" {
		return errcode.New(errcode.RecipientIdentityMissing, "recipient has neither id nor email")
	}
	// Relative or malformed URLs would not expand to IRIs and break canonicalization later; say so now.
	for _, u := range []string{in.ID, in.Issuer.ID, in.Issuer.URL, in.Achievement.ID, in.Issuer.ImageURL, in.Achievement.ImageURL, in.Recipient.ID} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || p.Scheme == "" {
			return errcode.New(errcode.MissingInfo, fmt.Sprintf("%q is not an absolute URL", u))
		}
	}
	if !in.ValidUntil.IsZero() && !in.ValidUntil.After(in.ValidFrom) {
		return errcode.New(errcode.MissingInfo, "validUntil is not after validFrom")
	}
	if in.Status != nil && (in.Status.ListCredential == "" || in.Status.Index < 0) {
		return errcode.New(errcode.MissingInfo, "status entry needs a list credential and an index ≥ 0")
	}
	return nil
}

func setIf(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// formatTime writes an XML Schema dateTime in UTC with second precision, as VC examples do.
func formatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(createdLayout) }
