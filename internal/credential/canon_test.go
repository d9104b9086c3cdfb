package credential

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestContextPins(t *testing.T) {
	urls := ContextURLs()
	require.Len(t, urls, len(contextFiles))
	for _, u := range urls {
		b, err := ContextDocument(u)
		require.NoError(t, err, u)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(b, &doc), u)
		require.Contains(t, doc, "@context", u)
	}
	docs, err := parsedContexts()
	require.NoError(t, err)
	require.Len(t, docs, len(contextFiles))
}

func TestContextPinDetectsChange(t *testing.T) {
	orig := contextFiles[ContextOB303]
	t.Cleanup(func() { contextFiles[ContextOB303] = orig })
	contextFiles[ContextOB303] = embeddedContext{orig.file, strings.Repeat("0", 64)}
	_, err := ContextDocument(ContextOB303)
	require.ErrorContains(t, err, "pinned")
}

// The OB 3.0.3 context was published in two versions: the one whose AchievementSubject "achievement" maps to
// vocab.html#achievement is the one the 1EdTech vector is signed with (the other says #achievement-0).
func TestOB303IsTheVectorVersion(t *testing.T) {
	b, err := ContextDocument(ContextOB303)
	require.NoError(t, err)
	require.Contains(t, string(b), `"https://purl.imsglobal.org/spec/vc/ob/vocab.html#achievement"`)
	require.NotContains(t, string(b), "#achievement-0")
}

func TestCanonicalizeErrors(t *testing.T) {
	ctx := context.Background()
	base := func() map[string]any {
		return map[string]any{
			"@context":          []any{ContextCredentialsV1},
			"id":                "urn:uuid:1",
			"type":              []any{"VerifiableCredential"},
			"issuer":            "https://issuer.example",
			"issuanceDate":      "2024-01-01T00:00:00Z",
			"credentialSubject": map[string]any{"id": "did:example:1"},
		}
	}
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		want   error
	}{
		{"undefined property", func(m map[string]any) { m["notDefined"] = "x" }, ErrUndefinedTerm},
		{"undefined nested property", func(m map[string]any) {
			m["credentialSubject"].(map[string]any)["favouriteColour"] = "blue"
		}, ErrUndefinedTerm},
		{"undefined type", func(m map[string]any) { m["type"] = []any{"VerifiableCredential", "NoSuchType"} }, ErrUndefinedTerm},
		{"relative id", func(m map[string]any) { m["id"] = "credentials/1" }, ErrUndefinedTerm},
		{"context not embedded", func(m map[string]any) {
			m["@context"] = []any{ContextCredentialsV1, "https://example.com/my-context.jsonld"}
		}, ErrUnknownContext},
		{"OB context of an unknown version", func(m map[string]any) {
			m["@context"] = []any{ContextCredentialsV2, "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.9.json"}
		}, ErrUnknownContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := base()
			_, err := Canonicalize(ctx, m, DefaultLimits)
			require.NoError(t, err, "base document must be valid")
			tt.mutate(m)
			_, err = Canonicalize(ctx, m, DefaultLimits)
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestCanonicalizeDocumentTooLarge(t *testing.T) {
	doc := []byte(`{"@context":"` + ContextCredentialsV2 + `","name":"` + strings.Repeat("a", 2000) + `"}`)
	_, err := CanonicalizeJSON(context.Background(), doc, Limits{MaxDocumentBytes: 1000})
	require.ErrorIs(t, err, ErrDocumentTooLarge)
}

// hostileDocument returns n blank nodes that all point at each other with one predicate: every node has the same
// first-degree hash, which sends RDFC-1.0 into factorial N-degree hashing.
func hostileDocument(n int) []byte {
	var nodes []string
	for i := range n {
		var links []string
		for j := range n {
			if j != i {
				links = append(links, fmt.Sprintf(`{"@id":"_:n%d"}`, j))
			}
		}
		nodes = append(nodes, fmt.Sprintf(`{"@id":"_:n%d","https://ex.example/p":[%s]}`, i, strings.Join(links, ",")))
	}
	return []byte(`{"@context":{"@vocab":"https://ex.example/"},"@graph":[` + strings.Join(nodes, ",") + `]}`)
}

func TestCanonicalizeHostileInputIsBounded(t *testing.T) {
	doc := hostileDocument(10)
	start := time.Now()
	_, err := CanonicalizeJSON(context.Background(), doc, DefaultLimits)
	require.ErrorIs(t, err, ErrCanonicalizationBudget)
	require.Less(t, time.Since(start), DefaultLimits.Timeout)

	// The deadline alone also stops it.
	lim := DefaultLimits
	lim.MaxWork = 0
	lim.Timeout = 200 * time.Millisecond
	start = time.Now()
	_, err = CanonicalizeJSON(context.Background(), doc, lim)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), time.Second)

	// Too many blank nodes is refused before any hashing.
	lim = DefaultLimits
	lim.MaxBlankNodes = 5
	_, err = CanonicalizeJSON(context.Background(), doc, lim)
	require.ErrorIs(t, err, ErrCanonicalizationBudget)
}

// Small symmetric graphs still canonicalize, and identically whatever the input order of the blank nodes.
func TestCanonicalizeSymmetricBlankNodes(t *testing.T) {
	a, err := CanonicalizeJSON(context.Background(), hostileDocument(4), DefaultLimits)
	require.NoError(t, err)
	require.Equal(t, 12, strings.Count(a, "\n"))
	renamed := strings.NewReplacer("_:n0", "_:x3", "_:n1", "_:x0", "_:n2", "_:x2", "_:n3", "_:x1").Replace(string(hostileDocument(4)))
	b, err := CanonicalizeJSON(context.Background(), []byte(renamed), DefaultLimits)
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NotContains(t, a, "_:n")
}

func TestEscapeLiteral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"한글 é", "한글 é"},
		{`quote " and backslash \`, `quote \" and backslash \\`},
		{"tab\tnl\ncr\r", `tab\tnl\ncr\r`},
		{"bs\bff\f", `bs\bff\f`},
		{"nul\x00us\x1fdel\x7f", `nul\u0000us\u001Fdel\u007F`},
		{"vt\x0b", `vt\u000B`},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, escapeLiteral(tt.in), "%q", tt.in)
	}
}

// json-gold's own writer leaves \b, \f and other control characters raw; ours must escape them as RDFC-1.0 does.
func TestCanonicalizeEscapesStrings(t *testing.T) {
	doc := map[string]any{
		"@context": ContextCredentialsV2,
		"id":       "urn:uuid:1",
		"name":     "a\"b\\c\td\be\ff\x01g\nh",
	}
	got, err := Canonicalize(context.Background(), doc, DefaultLimits)
	require.NoError(t, err)
	require.Equal(t, `<urn:uuid:1> <https://schema.org/name> "a\"b\\c\td\be\ff\u0001g\nh" .`+"\n", got)
}
