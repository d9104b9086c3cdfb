package credential

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Facts are the statements of a credential that a page or a printed certificate shows a person: who it was
// issued to, which achievement, by whom, and when it is valid. Read them only from bytes whose proof verified:
// the proof covers every term of the document (canonicalization refuses undefined ones), so each fact is signed.
type Facts struct {
	// RecipientName is the first plain-text identifier of identityType "name" (NameIdentity); empty when the
	// credential names no one (credentials signed before names were, which carry only hashed identifiers).
	RecipientName   string
	AchievementName string
	// AchievementDescription, AchievementCriteria (the criteria's narrative) and AchievementImage (the image's id,
	// a URL) are the badge as it was signed, whatever the issuer changed on the badge since.
	AchievementDescription string
	AchievementCriteria    string
	AchievementImage       string
	// AchievementSkills are the names of the achievement's alignments (targetName) and then its tags, in order.
	AchievementSkills []string
	IssuerName        string
	ValidFrom         time.Time // VC 2.0 validFrom, or VC 1.1 issuanceDate
	ValidUntil        time.Time // VC 2.0 validUntil, or VC 1.1 expirationDate; zero when the credential has none
	// Evidence is the credential's OB 3.0 evidence (its id read as URL), in order; nil when it has none.
	Evidence []Evidence
}

// ReadFacts reads the Facts of a credential. It does not verify the proof (Verify does): a caller shows the
// result as signed only after Verify succeeded on the same bytes.
func ReadFacts(credentialJSON []byte) (Facts, error) {
	var doc struct {
		ValidFrom      string          `json:"validFrom"`
		IssuanceDate   string          `json:"issuanceDate"`
		ValidUntil     string          `json:"validUntil"`
		ExpirationDate string          `json:"expirationDate"`
		Issuer         json.RawMessage `json:"issuer"`
		Subject        json.RawMessage `json:"credentialSubject"`
		Evidence       json.RawMessage `json:"evidence"`
	}
	if err := json.Unmarshal(credentialJSON, &doc); err != nil {
		return Facts{}, fmt.Errorf("read credential: %w", err)
	}
	var f Facts
	var err error
	if f.ValidFrom, err = parseFactTime(cmp.Or(doc.ValidFrom, doc.IssuanceDate)); err != nil || f.ValidFrom.IsZero() {
		return Facts{}, fmt.Errorf("read credential: validFrom %q: %v", cmp.Or(doc.ValidFrom, doc.IssuanceDate), err)
	}
	if f.ValidUntil, err = parseFactTime(cmp.Or(doc.ValidUntil, doc.ExpirationDate)); err != nil {
		return Facts{}, fmt.Errorf("read credential: validUntil: %w", err)
	}
	var issuer struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(doc.Issuer, &issuer) // a plain issuer URL has no name
	f.IssuerName = issuer.Name
	// credentialSubject is one object in what the service signs; VC allows a set, of which the first is read.
	var subjects []json.RawMessage
	if err := json.Unmarshal(doc.Subject, &subjects); err != nil {
		subjects = []json.RawMessage{doc.Subject}
	}
	var subject struct {
		Achievement struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Criteria    json.RawMessage `json:"criteria"`
			Image       json.RawMessage `json:"image"`
			Alignment   json.RawMessage `json:"alignment"`
			Tag         json.RawMessage `json:"tag"`
		} `json:"achievement"`
		Identifier []struct {
			IdentityType string `json:"identityType"`
			IdentityHash string `json:"identityHash"`
			Hashed       *bool  `json:"hashed"`
		} `json:"identifier"`
	}
	if len(subjects) > 0 {
		_ = json.Unmarshal(subjects[0], &subject) // an odd shape states nothing the page could show
	}
	ach := subject.Achievement
	f.AchievementName, f.AchievementDescription = ach.Name, ach.Description
	var criteria struct {
		Narrative string `json:"narrative"`
	}
	_ = json.Unmarshal(ach.Criteria, &criteria) // criteria with only an id state no text
	f.AchievementCriteria = criteria.Narrative
	f.AchievementImage = readImage(ach.Image)
	for _, a := range oneOrMany(ach.Alignment) {
		var al struct {
			TargetName string `json:"targetName"`
		}
		if json.Unmarshal(a, &al) == nil && al.TargetName != "" {
			f.AchievementSkills = append(f.AchievementSkills, al.TargetName)
		}
	}
	for _, t := range oneOrMany(ach.Tag) {
		var tag string
		if json.Unmarshal(t, &tag) == nil && tag != "" {
			f.AchievementSkills = append(f.AchievementSkills, tag)
		}
	}
	for _, id := range subject.Identifier {
		if id.IdentityType == "name" && id.Hashed != nil && !*id.Hashed && strings.TrimSpace(id.IdentityHash) != "" {
			f.RecipientName = id.IdentityHash
			break
		}
	}
	f.Evidence = readEvidence(doc.Evidence)
	return f, nil
}

// oneOrMany is the items of a JSON-LD value that may be one value or an array of them; nil when absent.
func oneOrMany(raw json.RawMessage) []json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		items = []json.RawMessage{raw}
	}
	return items
}

// readImage is the id of an OB 3.0 Image: the object's id, or the value itself when it is a plain IRI.
func readImage(raw json.RawMessage) string {
	var iri string
	if json.Unmarshal(raw, &iri) == nil {
		return iri
	}
	var img struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &img)
	return img.ID
}

// readEvidence reads the evidence items (one object or an array) that state anything a person can read.
func readEvidence(raw json.RawMessage) []Evidence {
	var out []Evidence
	for _, it := range oneOrMany(raw) {
		var e struct {
			ID, Name, Narrative, Genre string
		}
		if json.Unmarshal(it, &e) != nil {
			continue // an odd shape states nothing the page could show
		}
		if ev := (Evidence{URL: e.ID, Name: e.Name, Narrative: e.Narrative, Genre: e.Genre}); ev != (Evidence{}) {
			out = append(out, ev)
		}
	}
	return out
}

// parseFactTime reads an XML Schema dateTime as credentials carry it; "" is the zero time.
func parseFactTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}
