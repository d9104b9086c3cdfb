package credential

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fast path is held to json-gold's output byte for byte: every document it accepts is also canonicalized
// through json-gold and the two N-Quads documents compared. A document it declines goes to json-gold anyway.

// diffCanon canonicalizes doc both ways. fast reports whether the fast path took the document; when it did,
// json-gold must succeed too and agree.
func diffCanon(tb testing.TB, doc map[string]any) (nq string, fast bool) {
	tb.Helper()
	ctx := context.Background()
	quads, err := fastQuads(context.Background(), doc)
	if err != nil {
		require.ErrorIs(tb, err, errNotFast)
		return "", false
	}
	got, fastErr := canonicalizeQuads(ctx, quads, DefaultLimits)
	want, goldErr := canonicalizeJSONGold(ctx, doc, DefaultLimits)
	if goldErr != nil {
		require.Error(tb, fastErr, "json-gold refuses what the fast path accepted: %v\n%s", goldErr, mustJSON(tb, doc))
		return "", true
	}
	require.NoError(tb, fastErr, "%s", mustJSON(tb, doc))
	require.Equal(tb, want, got, "document:\n%s", mustJSON(tb, doc))
	return got, true
}

// contextVariant is a @context the service signs or accepts, with the credential shape it goes with.
type contextVariant struct {
	name string
	ctx  []any
	vc11 bool // VC Data Model 1.1: issuanceDate/expirationDate, no Bitstring status entry
}

// OB 3.0.0 and 3.0.1 were published for VC 1.1 (under VC 2.0 they redefine its protected terms); 3.0.2 and
// 3.0.3 for VC 2.0, which the service writes.
var contextVariants = []contextVariant{
	{"VC 2.0 + OB 3.0.3", []any{ContextCredentialsV2, ContextOB303}, false},
	{"VC 2.0 + OB 3.0.2", []any{ContextCredentialsV2, ContextOB302}, false},
	{"VC 2.0 + OB 3.0.3 + status list", []any{ContextCredentialsV2, ContextOB303, ContextStatusListV1}, false},
	{"VC 1.1 + OB 3.0.1", []any{ContextCredentialsV1, ContextOB301}, true},
	{"VC 1.1 + OB 3.0.0", []any{ContextCredentialsV1, ContextOB300}, true},
}

// withContext rewrites a built credential for a context variant.
func withContext(doc map[string]any, v contextVariant) map[string]any {
	doc["@context"] = v.ctx
	if v.vc11 {
		doc["issuanceDate"] = doc["validFrom"]
		delete(doc, "validFrom")
		if u, ok := doc["validUntil"]; ok {
			doc["expirationDate"] = u
			delete(doc, "validUntil")
		}
		delete(doc, "credentialStatus")
	}
	return doc
}

func TestFastCanonCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2026))
	const n = 1250
	taken, named := map[string]int{}, 0
	for i := range n {
		in := randomInput(r)
		v := contextVariants[i%len(contextVariants)]
		doc := roundTrip(t, withContext(mustBuild(t, in), v))
		if _, fast := diffCanon(t, doc); fast {
			taken[v.name]++
			if in.Recipient.Name != "" {
				named++
			}
		}
		cfg := roundTrip(t, map[string]any{
			"@context": doc["@context"], "type": ProofType, "cryptosuite": Cryptosuite, "proofPurpose": ProofPurpose,
			"created":            formatTime(in.ValidFrom.Add(time.Duration(r.IntN(1e6)) * time.Second)),
			"verificationMethod": in.Issuer.ID + "#" + randomSafe(r, 40),
		})
		if v.vc11 {
			cfg["@context"] = append(v.ctx, ContextDataIntegrityV2)
		}
		_, fast := diffCanon(t, cfg)
		require.True(t, fast, "proof configuration left the fast path: %s", mustJSON(t, cfg))
	}
	// What the service signs or accepts never leaves the fast path, whichever context version it names.
	for _, v := range contextVariants {
		require.Equal(t, n/len(contextVariants), taken[v.name], "credentials under %s on the fast path", v.name)
	}
	require.Greater(t, named, n/3, "credentials that name their recipient (NameIdentity) on the fast path")
}

// Mutated credentials wander out of the fast path's domain (numbers, lists, language maps, blank-node ids,
// undefined terms, odd IRIs): wherever the fast path still answers, it must answer as json-gold does.
func TestFastCanonMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	fast, declined := 0, 0
	for range 1000 {
		doc := roundTrip(t, mustBuild(t, randomInput(r)))
		for range 1 + r.IntN(3) {
			mutate(r, doc)
		}
		if _, ok := diffCanon(t, roundTrip(t, doc)); ok {
			fast++
		} else {
			declined++
		}
	}
	t.Logf("fast path %d, json-gold %d", fast, declined)
	require.Greater(t, fast, 100)
	require.Greater(t, declined, 100)
}

// Safe mode survives: the fast path declines undefined terms and unknown contexts, and the error is json-gold's.
func TestFastCanonDeclinesUndefinedTerms(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"@context": []any{ContextCredentialsV1}, "id": "urn:uuid:1",
			"type": []any{"VerifiableCredential"}, "issuer": "https://issuer.example",
			"issuanceDate": "2024-01-01T00:00:00Z", "credentialSubject": map[string]any{"id": "did:example:1"}}
	}
	_, fast := diffCanon(t, base())
	require.True(t, fast)
	for name, mutate := range map[string]func(map[string]any){
		"property": func(m map[string]any) { m["notDefined"] = "x" },
		"nested":   func(m map[string]any) { m["credentialSubject"].(map[string]any)["favouriteColour"] = "blue" },
		"type":     func(m map[string]any) { m["type"] = []any{"VerifiableCredential", "NoSuchType"} },
		"relative": func(m map[string]any) { m["id"] = "credentials/1" },
		"context":  func(m map[string]any) { m["@context"] = []any{ContextCredentialsV1, "https://example.com/c.jsonld"} },
	} {
		m := base()
		mutate(m)
		_, err := fastQuads(context.Background(), m)
		require.ErrorIs(t, err, errNotFast, name)
		_, err = Canonicalize(context.Background(), m, DefaultLimits)
		require.Error(t, err, name)
	}
}

func FuzzFastCanon(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 40 {
		doc := mustBuild(f, randomInput(r))
		if b := mustJSON(f, doc); len(b) < 4096 { // small seeds keep the fuzzer's minimization quick
			f.Add(b)
			mutate(r, doc)
			f.Add(mustJSON(f, doc))
		}
	}
	for _, v := range vectors(f) {
		f.Add(v.signed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil || doc == nil {
			return
		}
		diffCanon(t, doc)
	})
}

func roundTrip(tb testing.TB, v any) map[string]any {
	tb.Helper()
	var m map[string]any
	require.NoError(tb, json.Unmarshal(mustJSON(tb, v), &m))
	return m
}

// textPools are what randomText draws from: ASCII, Hangul, control characters, JSON and IRI delimiters, and
// other scripts, emoji, line/paragraph separators, zero-width and combining characters.
var textPools = [][]rune{
	[]rune("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 .,;:!?-_/#@"),
	[]rune("가나다라마바사아자차카타파하 한국어 배지 수료증 팀워크 대학교 의"),
	[]rune("\x00\x01\x07\b\t\n\v\f\r\x1b\x1f\x7f"),
	[]rune("\"\\'<>&{}|^`"),
	[]rune("é ñ ü 日本語 中文 😀 \u2028 \u2029 \u200b \ufeff \u0301"),
}

// randomText mixes the pools, and sometimes runs long.
func randomText(r *rand.Rand, max int) string {
	n := r.IntN(max + 1)
	if r.IntN(20) == 0 {
		n = 2000 + r.IntN(20000)
	}
	var sb strings.Builder
	for range n {
		p := textPools[r.IntN(len(textPools))]
		sb.WriteRune(p[r.IntN(len(p))])
	}
	return sb.String()
}

// randomURL is an absolute URL of the kinds the service writes and receives: paths with Hangul, queries,
// fragments, ports, percent escapes, DIDs and URNs.
func randomURL(r *rand.Rand) string {
	hosts := []string{"badges.example", "univ.example", "a-b.c.example", "xn--3e0b707e.example", "localhost:8443", "127.0.0.1"}
	switch r.IntN(8) {
	case 0:
		return "did:example:" + randomSafe(r, 20)
	case 1:
		return "urn:uuid:" + fmt.Sprintf("%08x-0000-4000-8000-%012x", r.Uint32(), r.Uint64()&0xffffffffffff)
	case 2:
		return "https://" + hosts[r.IntN(len(hosts))] + "/배지/" + randomSafe(r, 8)
	case 3:
		return "https://" + hosts[r.IntN(len(hosts))] + "/a%20b/" + randomSafe(r, 5) + "?q=1&r=" + randomSafe(r, 3) + "#frag"
	}
	return "https://" + hosts[r.IntN(len(hosts))] + "/" + randomSafe(r, 12)
}

func randomSafe(r *rand.Rand, max int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-._~"
	b := make([]byte, 1+r.IntN(max))
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

func maybe(r *rand.Rand, s string) string {
	if r.IntN(2) == 0 {
		return ""
	}
	return s
}

// randomInput exercises every optional field of the credential the service builds.
func randomInput(r *rand.Rand) BuildInput {
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(10 * 365 * 24 * time.Hour))))
	in := BuildInput{
		ID:        randomURL(r),
		Issuer:    Issuer{ID: randomURL(r), Name: "x" + randomText(r, 30), URL: randomURL(r), ImageURL: maybe(r, randomURL(r)), Email: maybe(r, "a@b.example")},
		ValidFrom: from,
		Name:      maybe(r, randomText(r, 40)),
		Recipient: Recipient{ID: maybe(r, randomURL(r)), Email: maybe(r, randomText(r, 20)+"@example.com"), Salt: maybe(r, randomSafe(r, 16)),
			Name: maybe(r, "m"+randomText(r, 40))},
		Achievement: Achievement{
			ID: randomURL(r), Name: "n" + randomText(r, 30), Description: "d" + randomText(r, 200),
			CriteriaNarrative: "c" + randomText(r, 300), ImageURL: maybe(r, randomURL(r)),
		},
	}
	if in.Recipient.ID == "" && in.Recipient.Email == "" {
		in.Recipient.Email = "kim@example.com"
	}
	if r.IntN(2) == 0 {
		in.ValidUntil = from.Add(time.Duration(1+r.IntN(1000)) * time.Hour)
	}
	for range r.IntN(4) {
		in.Achievement.Skills = append(in.Achievement.Skills, Skill{Name: randomText(r, 20), URL: maybe(r, randomURL(r)),
			Description: maybe(r, randomText(r, 50)), Framework: maybe(r, randomText(r, 10)), Code: maybe(r, randomSafe(r, 6))})
	}
	for range r.IntN(4) {
		in.Achievement.Tags = append(in.Achievement.Tags, randomText(r, 15))
	}
	if r.IntN(3) > 0 {
		in.Status = &StatusEntry{ListCredential: randomURL(r), Index: r.IntN(1 << 17)}
	}
	return in
}

// mutate changes one random place of a credential into something the fast path may or may not handle.
func mutate(r *rand.Rand, doc map[string]any) {
	values := []any{
		randomText(r, 10), 42.0, 1.5, true, false, nil, []any{}, []any{"a", []any{"b"}}, map[string]any{},
		map[string]any{"@value": "v", "@language": "ko"}, map[string]any{"@list": []any{"x"}},
		map[string]any{"id": "_:b1"}, map[string]any{"id": randomURL(r), "name": "n"}, "_:b2", randomURL(r),
		"https://bad host.example/x", "https://a.example/%zz", "relative/path", map[string]any{"@id": randomURL(r)},
		map[string]any{"type": "Image", "id": randomURL(r)}, map[string]any{"@context": map[string]any{"x": "https://x.example/"}},
	}
	keys := []string{
		"name", "description", "id", "type", "image", "tag", "notDefined", "https://ext.example/p", "ex:p", "@type",
		"@id", "narrative", "inLanguage", "creditsAvailable", "hashed", "achievementType", "result", "@graph",
		"proof", "evidence", "", "@foo", "awardedDate", "endorsement", "language", "identityHash", "identityType", "salt",
	}
	// Pick a node: the credential, its subject, the achievement, the issuer or the criteria.
	nodes := []map[string]any{doc}
	for _, path := range [][]string{{"credentialSubject"}, {"credentialSubject", "achievement"}, {"issuer"}, {"credentialSubject", "achievement", "criteria"}} {
		var cur any = doc
		for _, p := range path {
			if m, ok := cur.(map[string]any); ok {
				cur = m[p]
			}
		}
		if m, ok := cur.(map[string]any); ok {
			nodes = append(nodes, m)
		}
	}
	// The recipient's identifiers too: the hashed e-mail and the plain-text name (hashed false).
	if s, ok := doc["credentialSubject"].(map[string]any); ok {
		ids, _ := s["identifier"].([]any)
		for _, id := range ids {
			if m, ok := id.(map[string]any); ok {
				nodes = append(nodes, m)
			}
		}
	}
	n := nodes[r.IntN(len(nodes))]
	switch r.IntN(4) {
	case 0:
		delete(n, keys[r.IntN(len(keys))])
	case 1:
		n["@context"] = contextVariants[r.IntN(len(contextVariants))].ctx
	default:
		n[keys[r.IntN(len(keys))]] = values[r.IntN(len(values))]
	}
}

// The service's signer (issuer.Signer → Sign) never leaves the fast path for what Build makes, and its proofs
// verify.
func TestSignUsesFastPath(t *testing.T) {
	pub, priv := testKey(t)
	res := ownResolver(t, pub)
	before := jsonGoldRuns.Load()
	// Concurrently, as the sign activity does: the contexts and caches are shared (run with -race).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(11, uint64(g)))
			for range 15 {
				in := randomInput(r)
				in.Issuer.ID = testIssuer
				doc, err := Build(in)
				if err == nil {
					var signed []byte
					signed, err = Sign(context.Background(), doc, priv, SignOptions{VerificationMethod: VerificationMethodID(testIssuer, pub), Created: in.ValidFrom})
					if err == nil {
						_, err = Verify(context.Background(), signed, res)
					}
				}
				if err != nil {
					t.Error(err) // not require: FailNow must not run outside the test goroutine
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, before, jsonGoldRuns.Load(), "documents signed or verified through json-gold")
}

// Hostile input cannot make the fast path parse contexts without end or grow its cache past the cap: a document
// needing more new contexts than maxDerivePerDoc, or any once the cache is full, leaves the fast path and still
// gets json-gold's answer.
func TestFastPathBoundsContextWork(t *testing.T) {
	saved := ctxCache
	ctxCache = &contextCache{}
	t.Cleanup(func() { ctxCache = saved })
	types := []string{"Achievement", "AchievementSubject", "Address", "Alignment", "EndorsementSubject", "Evidence",
		"GeoCoordinates", "IdentifierEntry", "IdentityObject", "Image", "Profile", "Related", "Result",
		"ResultDescription", "RubricCriterionLevel", "JsonSchema", "BitstringStatusListEntry"}
	level := func(a, b string) map[string]any {
		return map[string]any{"type": []any{"VerifiableCredential", a, b}}
	}
	doc := func(levels []map[string]any) map[string]any {
		d := map[string]any{"@context": []any{ContextCredentialsV2, ContextOB303}, "type": "VerifiableCredential"}
		node := d
		for _, l := range levels { // each level needs VerifiableCredential's context for credentialSubject
			node["credentialSubject"] = l
			node = l
		}
		return d
	}
	var levels []map[string]any
	for i, a := range types {
		for _, b := range types[i+1:] {
			if _, err := canonicalizeJSONGold(context.Background(), doc([]map[string]any{level(a, b)}), DefaultLimits); err == nil {
				levels = append(levels, level(a, b)) // some pairs redefine each other's protected terms
			}
		}
	}
	require.Greater(t, len(levels), 40)
	_, fast := diffCanon(t, doc(levels[:len(levels)/2]))
	require.False(t, fast, "%d new contexts in one document", len(levels)/2)
	for range 20 { // a bit more is cached each time, until the document fits
		if _, fast = diffCanon(t, doc(levels[:len(levels)/2])); fast {
			break
		}
	}
	require.True(t, fast)

	ctxCache.size.Store(ctxCacheMax)
	_, fast = diffCanon(t, doc(levels[len(levels)/2:]))
	require.False(t, fast, "the cache is full")
	nq, err := canonicalizeValue(context.Background(), doc(levels[len(levels)/2:]), DefaultLimits)
	require.NoError(t, err)
	require.NotEmpty(t, nq)
}

// The walk stops at the deadline.
func TestFastPathDeadline(t *testing.T) {
	doc := map[string]any{"@context": []any{ContextCredentialsV2, ContextOB303}, "type": "VerifiableCredential"}
	node := doc
	for range 300 {
		child := map[string]any{"type": "VerifiableCredential", "name": "x"}
		node["credentialSubject"], node = child, child
	}
	_, err := fastQuads(context.Background(), doc)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = fastQuads(ctx, doc)
	require.ErrorIs(t, err, context.Canceled)
	_, err = canonicalizeValue(ctx, doc, DefaultLimits)
	require.ErrorIs(t, err, context.Canceled)
}
