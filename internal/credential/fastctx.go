package credential

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/piprate/json-gold/ld"
)

// The fast path keeps json-gold's context processing (term definitions, protected terms, @vocab, scoped contexts
// are json-gold's own) but does it once: every active context it reaches is derived from its parent by one of a
// few steps and remembered under that step. json-gold never changes a Context once parse has returned it, which
// is what makes sharing them across goroutines safe.

// fastOptions are those of toDataset; the loader serves the embedded contexts and keeps no state.
var fastOptions = func() *ld.JsonLdOptions {
	o := ld.NewJsonLdOptions("")
	o.DocumentLoader = staticLoader{}
	o.SafeMode = true
	o.ProcessingMode = ld.JsonLd_1_1
	return o
}()

type staticLoader struct{}

func (staticLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	docs, err := parsedContexts()
	if err != nil {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
	}
	doc, ok := docs[u]
	if !ok {
		return nil, ld.NewJsonLdError(ld.LoadingRemoteContextFailed, fmt.Sprintf("%s: %s", ErrUnknownContext, u))
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: doc}, nil
}

// deriveKind names the step from a parent context to a child one.
type deriveKind uint8

const (
	derivePropertyScoped deriveKind = iota // a term's @context applied to the value of that term
	deriveTypeScoped                       // a type's @context applied to a node of that type (not propagated)
	deriveRevert                           // back to the context before any type-scoped context
)

type deriveKey struct {
	parent *ld.Context
	term   *ld.TermDefinition // whose @context is applied; nil for deriveRevert
	kind   deriveKind
}

// Contexts a document can reach are bounded by the embedded contexts, but type-scoped contexts stack in the
// order a document's types ask for, so hostile input could make many; past the cap nothing new is remembered
// (work stays correct, at json-gold's cost).
const ctxCacheMax = 4096

var ctxCache struct {
	roots   sync.Map // "url\x00url…" → *ld.Context
	derived sync.Map // deriveKey → *ld.Context
	size    atomic.Int64
}

func remember(m *sync.Map, key any, c *ld.Context) *ld.Context {
	if ctxCache.size.Load() >= ctxCacheMax {
		return c
	}
	v, loaded := m.LoadOrStore(key, c)
	if !loaded {
		ctxCache.size.Add(1)
	}
	return v.(*ld.Context)
}

// rootContext returns the active context of a top-level @context made of embedded context URLs only; false for
// anything else (inline contexts, unknown URLs), which the fast path leaves to json-gold.
func rootContext(v any) (*ld.Context, bool) {
	var urls []string
	switch x := v.(type) {
	case string:
		urls = []string{x}
	case []any:
		if len(x) == 0 || len(x) > 8 {
			return nil, false
		}
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			urls = append(urls, s)
		}
	default:
		return nil, false
	}
	for _, u := range urls {
		if _, ok := contextFiles[u]; !ok {
			return nil, false
		}
	}
	key := strings.Join(urls, "\x00")
	if c, ok := ctxCache.roots.Load(key); ok {
		return c.(*ld.Context), true
	}
	local := make([]any, len(urls))
	for i, u := range urls {
		local[i] = u
	}
	c, err := ld.NewContext(nil, fastOptions).Parse(local)
	if err != nil {
		return nil, false
	}
	return remember(&ctxCache.roots, key, c), true
}

// derive applies a step to parent, as json-gold's expansion does at that point.
func derive(parent *ld.Context, td *ld.TermDefinition, kind deriveKind) (*ld.Context, error) {
	key := deriveKey{parent, td, kind}
	if c, ok := ctxCache.derived.Load(key); ok {
		return c.(*ld.Context), nil
	}
	var c *ld.Context
	switch kind {
	case deriveRevert:
		c = parent.RevertToPreviousContext()
	case derivePropertyScoped, deriveTypeScoped:
		local := td.Context
		if local == nil { // "@context": null on a term: rare, and json-gold treats it differently per step
			return nil, errNotFast
		}
		if kind == deriveTypeScoped {
			if local = withoutPropagation(local); local == nil {
				return nil, errNotFast
			}
		}
		var err error
		if c, err = parent.Parse(local); err != nil {
			return nil, errNotFast
		}
	}
	return remember(&ctxCache.derived, key, c), nil
}

// The steps call json-gold's exported Parse, which lacks two switches of the internal parse that expansion uses:
//   - type-scoped contexts do not propagate: the same effect is had with "@propagate": false in the first local
//     context (json-gold reads that entry before anything else, and a context's own entry wins either way);
//   - property-scoped contexts may override protected terms: Parse refuses a changed protected term instead, and
//     where it succeeds the term definitions are the same (it only marks an identical redefinition protected,
//     which can add a later refusal, never remove one). A refusal sends the document to json-gold.
func withoutPropagation(local any) any {
	switch x := local.(type) {
	case map[string]any:
		if _, ok := x["@propagate"]; ok {
			return x
		}
		m := make(map[string]any, len(x)+1)
		for k, v := range x {
			m[k] = v
		}
		m["@propagate"] = false
		return m
	case []any:
		if len(x) == 0 {
			return nil
		}
		first := withoutPropagation(x[0])
		if _, ok := first.(map[string]any); !ok {
			return nil
		}
		return append([]any{first}, x[1:]...)
	}
	return nil
}
