package credential

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piprate/json-gold/ld"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typedAchievements is n OB achievements, each typed with a type-scoped context that json-gold parses anew for
// every node (770 KB for n = 20000 took 34 s). The number leaves the fast path, which would cache the context.
func typedAchievements(n int) map[string]any {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"type":"Achievement","name":"a%d"}`, i)
	}
	return mustDecode(`{"@context":["` + ContextCredentialsV2 + `","` + ContextOB303 + `"],"id":"urn:x:1",` +
		`"type":"VerifiableCredential","https://ex.example/n":1,` +
		`"credentialSubject":{"type":"AchievementSubject","achievement":[` + strings.Join(items, ",") + `]}}`)
}

// scopedValues is n value objects under a property whose scoped context, defined inline in the document with
// terms terms, json-gold parses once per value: no node is ever complete until the end.
func scopedValues(n, terms int) map[string]any {
	defs := make([]string, terms)
	for i := range defs {
		defs[i] = fmt.Sprintf(`"t%d":"https://ex.example/t%d"`, i, i)
	}
	values := strings.TrimSuffix(strings.Repeat(`{"@value":"x"},`, n), ",")
	return mustDecode(`{"@context":{"@vocab":"https://ex.example/","p":{"@id":"https://ex.example/p","@context":{` +
		strings.Join(defs, ",") + `}}},"@id":"urn:x:1","p":[` + values + `]}`)
}

func mustDecode(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// Hostile documents canonicalized many times under a short deadline: every call returns at its deadline, no more
// than maxGoldRuns expansions ever run at once, and the abandoned ones stop at their next checkpoint instead of
// running to the end, so the goroutine count is back to its baseline long before one expansion could finish.
func TestAbandonedExpansionsStop(t *testing.T) {
	if _, err := toDataset(context.Background(), map[string]any{"@context": ContextOB303}); err != nil {
		t.Fatal(err) // parse the embedded contexts before taking the baseline
	}
	hostile := map[string]map[string]any{
		"typed achievements":    typedAchievements(20000),
		"inline scoped context": scopedValues(20000, 500),
	}
	// One expansion of a fiftieth of each document, to time the whole one by (the work is linear in n).
	calibration := map[string]map[string]any{
		"typed achievements":    typedAchievements(400),
		"inline scoped context": scopedValues(400, 500),
	}
	baseline := runtime.NumGoroutine()
	goldPeak.Store(0)
	lim := DefaultLimits
	lim.Timeout = 100 * time.Millisecond
	const rounds, concurrent = 3, 12
	for name, doc := range hostile {
		_, err := fastQuads(context.Background(), doc)
		require.ErrorIs(t, err, errNotFast, name)

		start := time.Now()
		_, err = toDataset(context.Background(), calibration[name])
		require.NoError(t, err, name)
		whole := 50 * time.Since(start)

		start = time.Now()
		for range rounds {
			var wg sync.WaitGroup
			for range concurrent {
				wg.Add(1)
				go func() {
					defer wg.Done()
					called := time.Now()
					_, err := canonicalizeValue(context.Background(), doc, lim)
					assert.ErrorIs(t, err, context.DeadlineExceeded, name)
					assert.Less(t, time.Since(called), lim.Timeout+time.Second, name)
				}()
			}
			wg.Wait()
		}
		waitFor(t, 10*time.Second, func() bool {
			return goldRunning.Load() == 0 && runtime.NumGoroutine() <= baseline
		}, func() string {
			return fmt.Sprintf("%s: %d expansions still running, %d goroutines (baseline %d)",
				name, goldRunning.Load(), runtime.NumGoroutine(), baseline)
		})
		settled := time.Since(start)
		t.Logf("%s: %d calls settled in %v; one expansion to the end takes about %v", name, rounds*concurrent,
			settled, whole)
		require.Less(t, settled, whole, "%s: abandoned expansions ran to the end", name)
	}
	require.LessOrEqual(t, goldPeak.Load(), int64(maxGoldRuns), "expansions running at once")
	require.Positive(t, goldPeak.Load())
}

// waitFor polls cond in the calling goroutine (testify's Eventually polls from a goroutine of its own, which
// would count against the baseline) until it holds, or fails the test with what() once timeout has passed.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		<-time.After(5 * time.Millisecond)
	}
}

// A caller that finds every slot taken waits for its own deadline and starts nothing; once a slot is free, it runs.
func TestGoldGateWaits(t *testing.T) {
	doc := scopedValues(2, 2)
	for range maxGoldRuns {
		require.NoError(t, acquireGold(context.Background()))
	}
	lim := DefaultLimits
	lim.Timeout = 50 * time.Millisecond
	_, err := canonicalizeValue(context.Background(), doc, lim)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.EqualValues(t, maxGoldRuns, goldRunning.Load())
	releaseGold()
	nq, err := canonicalizeValue(context.Background(), doc, lim)
	require.NoError(t, err)
	require.Contains(t, nq, `<urn:x:1> <https://ex.example/p> "x" .`)
	for range maxGoldRuns - 1 {
		releaseGold()
	}
	require.Zero(t, goldRunning.Load())
}

// Checkpoints change nothing in the expansion: documents with inline scoped contexts of every kind (property- and
// type-scoped, not propagated, protected, nested, empty, null, a URL, an array) expand as without them.
func TestCheckpointsKeepExpansion(t *testing.T) {
	docs := []string{
		`{"@context":{"@vocab":"https://ex.example/","p":{"@id":"https://ex.example/p","@context":{"q":"https://ex.example/q2"}}},
		  "@id":"urn:x:1","q":"outer","p":{"q":"inner","p":{"q":"deeper"}}}`,
		`{"@context":{"@vocab":"https://ex.example/","T":{"@id":"https://ex.example/T","@context":{"q":"https://ex.example/q2"}}},
		  "@id":"urn:x:1","@type":"T","q":"typed","r":{"q":"reverted"}}`,
		`{"@context":{"@vocab":"https://ex.example/","T":{"@id":"https://ex.example/T","@context":{"@propagate":true,"q":"https://ex.example/q2"}}},
		  "@id":"urn:x:1","@type":"T","r":{"q":"propagated"}}`,
		`{"@context":{"@vocab":"https://ex.example/","p":{"@id":"https://ex.example/p","@context":{"@propagate":false,"q":"https://ex.example/q2"}}},
		  "@id":"urn:x:1","p":{"q":"here","r":{"q":"not here"}}}`,
		`{"@context":{"@vocab":"https://ex.example/","@protected":true,"q":"https://ex.example/q","p":{"@id":"https://ex.example/p","@context":{"q":"https://ex.example/q2"}}},
		  "@id":"urn:x:1","p":{"q":"override protected"}}`,
		`{"@context":{"@vocab":"https://ex.example/","p":{"@id":"https://ex.example/p","@context":{"s":{"@id":"https://ex.example/s","@context":{"q":"https://ex.example/q3"}}}}},
		  "@id":"urn:x:1","p":{"s":{"q":"nested"}}}`,
		`{"@context":{"@vocab":"https://ex.example/","T":{"@id":"https://ex.example/T","@context":[]},"p":{"@id":"https://ex.example/p","@context":null}},
		  "@id":"urn:x:1","@type":"T","q":"empty","p":{"https://ex.example/q":"null"},"r":{"@type":"T","q":"x"}}`,
		`{"@context":{"@vocab":"https://ex.example/","p":{"@id":"https://ex.example/p","@context":"` + ContextCredentialsV2 + `"}},
		  "@id":"urn:x:1","p":{"name":"a URL"}}`,
		`{"@context":[{"@vocab":"https://ex.example/"},{"T":{"@id":"https://ex.example/T","@context":[{"q":"https://ex.example/q2"},{"@vocab":"https://ex.example/v/"}]}}],
		  "@id":"urn:x:1","@type":"T","q":"array","z":{"q":1}}`,
		`{"@context":["` + ContextCredentialsV2 + `","` + ContextOB303 + `"],"id":"urn:x:1","type":["VerifiableCredential","OpenBadgeCredential"],
		  "credentialSubject":{"type":"AchievementSubject","achievement":{"id":"urn:x:2","type":"Achievement","name":"n","criteria":{"narrative":"c"}}}}`,
	}
	loads := &countingLoader{embeddedLoader: embeddedLoader{ctx: context.Background()}}
	for i, s := range docs {
		doc := mustDecode(s)
		plain := ld.NewJsonLdOptions("")
		plain.DocumentLoader = staticLoader{}
		plain.SafeMode = true
		plain.ProcessingMode = ld.JsonLd_1_1
		want, err := ld.NewJsonLdProcessor().Expand(doc, plain)
		require.NoError(t, err, i)

		checked := plain.Copy()
		checked.DocumentLoader = loads
		got, err := ld.NewJsonLdProcessor().Expand(withDocumentCheckpoints(doc), checked)
		require.NoError(t, err, i)
		require.Equal(t, want, got, "document %d", i)
		require.Equal(t, mustDecode(s), doc, "document %d was modified", i)
	}
	require.Greater(t, loads.checkpoints, len(docs), "checkpoints reached")
}

// countingLoader counts the checkpoints it serves.
type countingLoader struct {
	embeddedLoader
	checkpoints int
}

func (l *countingLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if u == checkpointURL {
		l.checkpoints++
	}
	return l.embeddedLoader.LoadDocument(u)
}
