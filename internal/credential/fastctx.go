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

// activeContext is a json-gold active context and the one a type-scoped context reverts to. json-gold keeps
// the latter as a private deep copy (RevertToPreviousContext copies it again on every call), so it is tracked
// here by the same rule as parse: a context that does not propagate gets its parent as previous, unless the
// parent already had one; every other context inherits its parent's. A copy and its original expand alike,
// and sharing the original lets the contexts of nested nodes be found in the cache instead of made anew.
type activeContext struct {
	c    *ld.Context
	prev *activeContext // nil: nothing to revert
}

// revert is json-gold's RevertToPreviousContext.
func (a *activeContext) revert() *activeContext {
	if a.prev != nil {
		return a.prev
	}
	return a
}

// deriveKind names the step from a parent context to a child one.
type deriveKind uint8

const (
	derivePropertyScoped deriveKind = iota // a term's @context applied to the value of that term
	deriveTypeScoped                       // a type's @context applied to a node of that type (not propagated)
)

type deriveKey struct {
	parent *activeContext
	term   *ld.TermDefinition // whose @context is applied
	kind   deriveKind
}

// Contexts a document can reach are bounded by the embedded contexts, but type-scoped contexts stack in the
// order a document's types ask for, so hostile input could make many (each a json-gold parse, and some KB kept).
// The cache stops growing at ctxCacheMax, and one document may derive at most maxDerivePerDoc contexts not yet
// cached; past either, it goes to json-gold, which runs under the deadline. A credential of this service needs
// about ten, all cached after the first.
const (
	ctxCacheMax     = 512
	maxDerivePerDoc = 32
)

type contextCache struct {
	roots   sync.Map // "url\x00url…" → *activeContext
	derived sync.Map // deriveKey → *activeContext
	size    atomic.Int64
}

var ctxCache = &contextCache{}

func remember(m *sync.Map, key any, a *activeContext) *activeContext {
	v, loaded := m.LoadOrStore(key, a)
	if !loaded {
		ctxCache.size.Add(1)
	}
	return v.(*activeContext)
}

func cacheFull() bool { return ctxCache.size.Load() >= ctxCacheMax }

// rootContext returns the active context of a top-level @context made of embedded context URLs only; false for
// anything else (inline contexts, unknown URLs), which the fast path leaves to json-gold.
func rootContext(v any) (*activeContext, bool) {
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
	if a, ok := ctxCache.roots.Load(key); ok {
		return a.(*activeContext), true
	}
	if cacheFull() {
		return nil, false
	}
	local := make([]any, len(urls))
	for i, u := range urls {
		local[i] = u
	}
	c, err := ld.NewContext(nil, fastOptions).Parse(local)
	if err != nil {
		return nil, false
	}
	return remember(&ctxCache.roots, key, &activeContext{c: c}), true
}

// derive applies a term's or a type's scoped context to parent, as json-gold's expansion does at that point.
// budget counts the contexts the document may still derive that are not cached.
func derive(parent *activeContext, td *ld.TermDefinition, kind deriveKind, budget *int) (*activeContext, error) {
	key := deriveKey{parent, td, kind}
	if a, ok := ctxCache.derived.Load(key); ok {
		return a.(*activeContext), nil
	}
	if *budget <= 0 || cacheFull() {
		return nil, errNotFast
	}
	*budget--
	local, propagate, ok := scopedContext(td.Context, kind == derivePropertyScoped)
	if !ok {
		return nil, errNotFast
	}
	c, err := parent.c.Parse(local)
	if err != nil {
		return nil, errNotFast
	}
	a := &activeContext{c: c, prev: parent.prev}
	if !propagate && a.prev == nil {
		a.prev = parent
	}
	return remember(&ctxCache.derived, key, a), nil
}

// The steps call json-gold's exported Parse, which lacks two switches of the internal parse that expansion uses:
//   - type-scoped contexts do not propagate: the same effect is had with "@propagate": false in the first local
//     context (json-gold reads that entry before anything else, and a context's own entry wins either way);
//   - property-scoped contexts may override protected terms: Parse refuses a changed protected term instead, and
//     where it succeeds the term definitions are the same (it only marks an identical redefinition protected,
//     which can add a later refusal, never remove one). A refusal sends the document to json-gold.
//
// scopedContext returns the local context to give Parse and whether the result propagates; false for shapes
// left to json-gold ("@context": null, nulls in an array, a first context that is not an object).
func scopedContext(local any, propagate bool) (any, bool, bool) {
	list, isList := local.([]any)
	if !isList {
		list = []any{local}
	}
	if len(list) == 0 {
		return nil, false, false
	}
	for _, e := range list {
		if e == nil {
			return nil, false, false
		}
	}
	first, ok := list[0].(map[string]any)
	if !ok {
		return nil, false, false
	}
	if p, ok := first["@propagate"]; ok {
		b, ok := p.(bool)
		return local, b, ok
	}
	if propagate {
		return local, true, true
	}
	m := make(map[string]any, len(first)+1)
	for k, v := range first {
		m[k] = v
	}
	m["@propagate"] = false
	return append([]any{m}, list[1:]...), false, true
}
