package verifier

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/badged/badged/internal/baking"
)

// Formats of an input, as Extract reports them.
const (
	FormatJSON = "json"
	FormatPNG  = "png"
	FormatSVG  = "svg"
)

// ErrNotCredential reports an input that is neither a credential JSON nor an image with one baked in.
var ErrNotCredential = errors.New("not an Open Badges credential (want credential JSON, or a baked PNG or SVG)")

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Extract returns the credential JSON an input holds and the input's format, decided by content (never by file
// name): a JSON object is the credential itself; a PNG or SVG is unbaked. The bytes are returned as found, because
// an anchor commits to the exact bytes the issuer stored. Errors wrap ErrNotCredential.
func Extract(input []byte) (cred []byte, format string, err error) {
	head := bytes.TrimLeft(bytes.TrimPrefix(input, []byte("\xEF\xBB\xBF")), " \t\r\n")
	switch {
	case len(head) > 0 && head[0] == '{':
		cred, format = input, FormatJSON
	case bytes.HasPrefix(input, pngSignature):
		format = FormatPNG
	case len(head) > 0 && head[0] == '<':
		format = FormatSVG
	default:
		return nil, "", ErrNotCredential
	}
	if format != FormatJSON {
		if cred, err = baking.Unbake(input); err != nil {
			return nil, format, fmt.Errorf("%w: %s image: %v", ErrNotCredential, format, err)
		}
	}
	if err := checkCredentialShape(cred); err != nil {
		return nil, format, fmt.Errorf("%w: %v", ErrNotCredential, err)
	}
	return cred, format, nil
}

// checkCredentialShape rejects JSON that is no Verifiable Credential before any canonicalization work is spent.
func checkCredentialShape(cred []byte) error {
	trimmed := bytes.TrimSpace(cred)
	if bytes.HasPrefix(trimmed, []byte("ey")) {
		return errors.New("the credential is a VC-JWT, which this verifier does not support")
	}
	var doc struct {
		Context json.RawMessage `json:"@context"`
		Type    any             `json:"type"`
	}
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		return fmt.Errorf("parse credential JSON: %v", err)
	}
	if len(doc.Context) == 0 {
		return errors.New("the JSON has no @context")
	}
	if !hasType(doc.Type, "VerifiableCredential") {
		return errors.New("the JSON is not of type VerifiableCredential")
	}
	return nil
}

// hasType reports whether a JSON-LD type value (a string or a list of strings) holds want.
func hasType(v any, want string) bool {
	switch t := v.(type) {
	case string:
		return t == want
	case []any:
		for _, x := range t {
			if x == want {
				return true
			}
		}
	}
	return false
}
