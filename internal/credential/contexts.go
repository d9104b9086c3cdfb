package credential

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/piprate/json-gold/ld"
)

// The JSON-LD context URLs this package knows. Every context is served from an embedded file; nothing is fetched.
const (
	ContextCredentialsV2   = "https://www.w3.org/ns/credentials/v2"
	ContextCredentialsV1   = "https://www.w3.org/2018/credentials/v1"
	ContextDataIntegrityV1 = "https://w3id.org/security/data-integrity/v1"
	ContextDataIntegrityV2 = "https://w3id.org/security/data-integrity/v2"
	ContextMultikeyV1      = "https://w3id.org/security/multikey/v1"
	// ContextEd25519Sig2020 defines Ed25519Signature2020, the proof the DCC Learner Credential Wallet signs its
	// DIDAuthentication presentations with (VerifyAuthentication).
	ContextEd25519Sig2020 = "https://w3id.org/security/suites/ed25519-2020/v1"
	ContextDIDV1          = "https://www.w3.org/ns/did/v1"
	ContextStatusListV1   = "https://www.w3.org/ns/credentials/status/v1"
	ContextExamplesV2     = "https://www.w3.org/ns/credentials/examples/v2"
	ContextOB300          = "https://purl.imsglobal.org/spec/ob/v3p0/context.json"
	ContextOB301          = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.1.json"
	ContextOB302          = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.2.json"
	ContextOB303          = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
)

// ErrUnknownContext reports a JSON-LD context URL that is not embedded. It is never fetched from the network.
var ErrUnknownContext = errors.New("json-ld context not embedded")

//go:embed contexts/*.jsonld contexts/*.json
var contextFS embed.FS

// embeddedContext is one context file and the SHA-256 its bytes must have. The pin makes an accidental edit or a
// swap for the other published text (see contexts/SOURCE.md) fail at start-up and in tests.
type embeddedContext struct {
	file   string
	sha256 string
}

var contextFiles = map[string]embeddedContext{
	ContextCredentialsV2:   {"credentials-v2.jsonld", "8a9f494a89ecc51db093e90e84713e07e84d6d9204364a9b3c7868b21751236f"},
	ContextCredentialsV1:   {"credentials-v1.jsonld", "00d7dd6d3ad8b920e3e550dd3a3d9090bffcac84cdbf943da6924b3e0a5c8bb8"},
	ContextDataIntegrityV1: {"data-integrity-v1.jsonld", "b5d829bd09aa7c42abc6efa0c8ed7635313b5487f37ccfce3ecd149ca9418554"},
	ContextDataIntegrityV2: {"data-integrity-v2.jsonld", "0f77743daf5b4e8fc067fc5ba5b21044283053aa717fc6b0219843bed3b00363"},
	ContextMultikeyV1:      {"multikey-v1.jsonld", "c5f3806f8286920573221938917988a18a4cc5a09e968d29649613c7a1c2b1f6"},
	ContextEd25519Sig2020:  {"ed25519-signature-2020-v1.jsonld", "b9e1ab971fd8bf2c7553e0c4a9438e0b9450afde1ea1ca5b2492368b9f549588"},
	ContextDIDV1:           {"did-v1.jsonld", "62c1054bf404d6dd3a4b26b64f830fd72095f6a26edc4469908c94351352ce5f"},
	ContextStatusListV1:    {"bitstring-status-list-v1.jsonld", "fd08cbf28ddd829ab2f1978c48f43ab07a112c1c90245a0cfac7ba721c65170c"},
	ContextExamplesV2:      {"credentials-examples-v2.jsonld", "57393fbc69d6efb9b9b5dc9cb6b9880b0944360abfe2eaf459c9e58cf2279d7c"},
	ContextOB300:           {"ob-v3p0-context-3.0.0.json", "200cbcd7500e7a08d0ca2787f691bfdc0c3b44d9ff1fee2ecd4bbb12103688c8"},
	ContextOB301:           {"ob-v3p0-context-3.0.1.json", "af095468326d3449160509b26ca71576e6321d13c85b0369cfe3b654c9a48fba"},
	ContextOB302:           {"ob-v3p0-context-3.0.2.json", "00666ad080ba407687ed1846b7f5e7495f5019042b202a727de47c48a1755c53"},
	ContextOB303:           {"ob-v3p0-context-3.0.3.json", "ef2fa9c7846dce233cc166b43639027278be4ee44f00bb1d45c75de2dd0cd761"},
}

// ContextURLs returns the context URLs served from embedded files.
func ContextURLs() []string { return slices.Sorted(maps.Keys(contextFiles)) }

// ContextDocument returns the embedded bytes of a context URL, after checking them against their pinned SHA-256.
func ContextDocument(url string) ([]byte, error) {
	ec, ok := contextFiles[url]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownContext, url)
	}
	b, err := contextFS.ReadFile("contexts/" + ec.file)
	if err != nil {
		return nil, fmt.Errorf("read embedded context %s: %w", url, err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != ec.sha256 {
		return nil, fmt.Errorf("embedded context %s: sha256 %s, pinned %s", url, got, ec.sha256)
	}
	return b, nil
}

// parsedContexts holds each context parsed once; json-gold only reads the documents it is given.
var parsedContexts = sync.OnceValues(func() (map[string]any, error) {
	out := make(map[string]any, len(contextFiles))
	for url := range contextFiles {
		b, err := ContextDocument(url)
		if err != nil {
			return nil, err
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("parse embedded context %s: %w", url, err)
		}
		out[url] = doc
	}
	return out, nil
})

// embeddedLoader is toDataset's json-gold DocumentLoader over the embedded contexts, with checkpoints in their
// scoped contexts (goldstop.go). It remembers the first URL it could not serve so that the caller can report
// ErrUnknownContext (json-gold wraps loader errors in its own type), and fails once ctx is done, which is how an
// expansion abandoned at its deadline stops.
type embeddedLoader struct {
	ctx     context.Context
	missing string
	err     error
}

var _ ld.DocumentLoader = (*embeddedLoader)(nil)

// LoadDocument serves an embedded context or fails; it never touches the network.
func (l *embeddedLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if err := l.ctx.Err(); err != nil {
		l.err = err
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
	}
	if u == checkpointURL {
		return &ld.RemoteDocument{DocumentURL: u, Document: map[string]any{"@context": map[string]any{}}}, nil
	}
	docs, err := checkpointedContexts()
	if err != nil {
		l.err = err
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
	}
	doc, ok := docs[u]
	if !ok {
		if l.missing == "" {
			l.missing = u
		}
		return nil, ld.NewJsonLdError(ld.LoadingRemoteContextFailed, fmt.Sprintf("%s: %s", ErrUnknownContext, u))
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: doc}, nil
}
