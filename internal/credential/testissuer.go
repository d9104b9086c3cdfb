package credential

import (
	"encoding/json"
	"strings"
)

// A test issuer is the sandbox twin of an organization's issuer: its own id, key and controller document, which
// says what it is in the property TestIssuerTerm (the id of the live issuer it stands beside) and in its name.
// The live issuer's document never lists a test key, so a test credential cannot verify as the live issuer's, and
// a verifier that resolves the key learns from the same document that the credential is a test.
const (
	// TestIssuerTerm is the controller-document property that marks a test issuer.
	TestIssuerTerm = "testIssuerOf"
	// TestIssuerIRI is what TestIssuerTerm expands to: a URN, so that it names no host and is never fetched.
	TestIssuerIRI = "urn:badged:vocab:testIssuerOf"
	// TestNamePrefix starts the name of a test issuer, in its document and in every credential it signs.
	TestNamePrefix = "[TEST] "
)

// testIssuerContext defines the terms a test issuer's document adds, inline (as AddAnchorAccount does), so a
// JSON-LD processor needs no extra context document.
var testIssuerContext = map[string]any{
	"name":         "https://schema.org/name",
	"description":  "https://schema.org/description",
	TestIssuerTerm: map[string]any{"@id": TestIssuerIRI, "@type": "@id"},
}

// MarkTestIssuer turns a controller document into a test issuer's: it names the live issuer it stands beside,
// and carries a name and description that say TEST to whoever reads it.
func MarkTestIssuer(doc map[string]any, liveIssuerID, name, description string) {
	ctx, _ := doc["@context"].([]any)
	doc["@context"] = append(ctx, testIssuerContext)
	doc[TestIssuerTerm] = liveIssuerID
	doc["name"] = name
	doc["description"] = description
}

// TestIssuerOf reads the marker of a test issuer's controller document: the live issuer id it names, or "" for
// any other document.
func TestIssuerOf(doc []byte) string {
	var d map[string]any
	if json.Unmarshal(doc, &d) != nil {
		return ""
	}
	s, _ := d[TestIssuerTerm].(string)
	return strings.TrimSpace(s)
}

// TestName is the name of an organization's test issuer.
func TestName(orgName string) string { return TestNamePrefix + orgName }
