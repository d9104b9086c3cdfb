package credential

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
)

// json-gold has no cancellation: once its expansion runs, only its own return ends it, and a hostile document can
// keep it busy for minutes (every node typed with a type-scoped context re-parses that context: 770 KB of OB
// Achievements took 34 s). Two things keep work abandoned at the deadline from piling up:
//
//   - Checkpoints. The document loader is json-gold's only callback on the way, so each scoped context (the
//     per-node work that amplifies) is made to call it: a private checkpoint URL, serving an empty context, is
//     appended to every scoped context of the embedded contexts and of the document's own top-level @context. An
//     empty remote context after the others changes nothing in the result (no term, no @base, first entry and so
//     its @propagate kept), and the loader fails once the deadline has passed, which ends the expansion at the
//     next scoped context or remote context it meets. Stages (expand, check, toRDF) also check in between.
//   - A gate. At most maxGoldRuns expansions run at once, abandoned or not: a slot is released when the goroutine
//     really returns, and a caller that finds none free waits until its own deadline. Work that no checkpoint
//     reaches (nested inline contexts of the document, deeply nested input) is so bounded in concurrency, and
//     each run in size by Limits.MaxDocumentBytes.

// maxGoldRuns bounds the json-gold expansions running at once. Signing never takes that path and verification
// mostly does not (fastcanon.go); a handful is room for the rare legitimate ones.
const maxGoldRuns = 4

var (
	goldSlots   = make(chan struct{}, maxGoldRuns)
	goldRunning atomic.Int64 // expansions running now, abandoned ones included
	goldPeak    atomic.Int64 // the most that ever ran at once (tests check the gate)
)

// acquireGold takes a slot, or returns the error of ctx once done.
func acquireGold(ctx context.Context) error {
	select {
	case goldSlots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	n := goldRunning.Add(1)
	for {
		p := goldPeak.Load()
		if n <= p || goldPeak.CompareAndSwap(p, n) {
			return nil
		}
	}
}

func releaseGold() {
	goldRunning.Add(-1)
	<-goldSlots
}

// checkpointURL is the context URL that only serves as a checkpoint. It is random per process so that no
// document can name it (a document naming it would otherwise get an empty context instead of ErrUnknownContext).
var checkpointURL = func() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "urn:badged:checkpoint:" + hex.EncodeToString(b)
}()

// checkpointedContexts are the embedded contexts with checkpoints in their scoped contexts, for toDataset's
// loader (the fast path reads the contexts once per process and keeps parsedContexts).
var checkpointedContexts = sync.OnceValues(func() (map[string]any, error) {
	docs, err := parsedContexts()
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(docs))
	for u, d := range docs {
		m := d.(map[string]any) // TestContextPins: every embedded context is an object with @context
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		c["@context"] = withCheckpoints(m["@context"])
		out[u] = c
	}
	return out, nil
})

// withDocumentCheckpoints returns the document with checkpoints in the scoped contexts of its top-level
// @context, the only place where @context is known to be a context without expanding (deeper, a key "@context"
// may sit in a JSON literal). The input is not modified.
func withDocumentCheckpoints(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	lc, ok := m["@context"]
	if !ok {
		return doc
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["@context"] = withCheckpoints(lc)
	return c
}

// withCheckpoints returns a local context (an object, a URL, null or an array of them) whose term definitions'
// scoped contexts end with the checkpoint URL. What it does not recognise is returned as is, for json-gold to
// judge.
func withCheckpoints(local any) any {
	switch x := local.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, v := range x {
			if td, ok := v.(map[string]any); ok && k != "" && k[0] != '@' {
				if sc, ok := td["@context"]; ok {
					td = withScopedCheckpoint(td, sc)
				}
				v = td
			}
			c[k] = v
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = withCheckpoints(e)
		}
		return c
	}
	return local
}

// withScopedCheckpoint returns a copy of the term definition td whose scoped context sc ends with the checkpoint.
func withScopedCheckpoint(td map[string]any, sc any) map[string]any {
	var scoped []any
	switch x := sc.(type) {
	case map[string]any:
		scoped = []any{withCheckpoints(x), checkpointURL}
	case []any:
		if len(x) == 0 {
			return td // no context at all: json-gold returns the active context itself, not a copy
		}
		scoped = append(withCheckpoints(x).([]any), checkpointURL)
	default: // a URL already goes through the loader; null and invalid values are left to json-gold
		return td
	}
	c := make(map[string]any, len(td))
	for k, v := range td {
		c[k] = v
	}
	c["@context"] = scoped
	return c
}
