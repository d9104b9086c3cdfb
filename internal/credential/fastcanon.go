package credential

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// The fast path turns a JSON-LD document straight into RDF quads, without building json-gold's expanded form,
// node map and dataset, for the documents this service signs and most it verifies: node objects under a
// @context made of embedded context URLs, with @id, @type, strings, booleans, nested nodes and arrays of them.
// It walks the document as json-gold's expansion (api_expand.go) does, step for step, using json-gold's own
// active contexts (see fastctx.go), and writes what toDataset + checkExpanded would. Whatever it does not
// handle exactly that way (value objects, lists, graphs, language maps, numbers, @json, embedded contexts,
// blank-node ids, undefined terms, IRIs json-gold would drop or refuse) makes it give up, and the caller runs
// json-gold: the output is json-gold's in every case, and so are the errors.

// errNotFast reports a document the fast path leaves to json-gold.
var errNotFast = errors.New("document outside the fast path")

// fastQuads returns the quads of doc (generic JSON as encoding/json decodes it), errNotFast, or the error of ctx
// once done (it is checked as nodes are walked: the walk is linear in the document, but documents are large).
func fastQuads(ctx context.Context, doc map[string]any) ([]rdfQuad, error) {
	local, ok := doc["@context"]
	if !ok {
		return nil, errNotFast
	}
	root, ok := rootContext(local)
	if !ok {
		return nil, errNotFast
	}
	w := &fastWalker{ctx: ctx, quads: make([]rdfQuad, 0, 64), budget: maxDerivePerDoc}
	if _, _, err := w.node(root, "", doc, true); err != nil {
		return nil, err
	}
	return w.quads, nil
}

type fastWalker struct {
	ctx    context.Context
	quads  []rdfQuad
	blanks int
	nodes  int
	budget int // contexts this document may still derive (see derive)
}

// object is the RDF object of one property value.
type object struct {
	term  string
	blank bool
}

// node writes the quads of one node object and returns its term. activeCtx is the context json-gold's
// expandElement is called with for elem, activeProperty the key elem is the value of.
func (w *fastWalker) node(activeCtx *activeContext, activeProperty string, elem map[string]any, top bool) (string, bool, error) {
	if w.nodes++; w.nodes%256 == 0 {
		if err := w.ctx.Err(); err != nil {
			return "", false, fmt.Errorf("json-ld expansion: %w", err)
		}
	}
	if !top {
		if _, ok := elem["@context"]; ok {
			return "", false, errNotFast
		}
		// expandElement: revert a type-scoped context unless elem is a value or a lone reference, then apply the
		// active property's scoped context (looked up before reverting).
		var propTD *ld.TermDefinition
		if td := activeCtx.c.GetTermDefinition(activeProperty); td != nil && td.Context != nil {
			propTD = td
		}
		reverted := activeCtx.revert()
		mustRevert := true
		if reverted != activeCtx && len(elem) <= 2 {
			for k := range elem {
				e, err := expandIRI(activeCtx.c, k, false, true)
				if err != nil || e == "@value" {
					return "", false, errNotFast
				}
				if e == "@id" && len(elem) == 1 {
					mustRevert = false
				}
			}
		}
		if mustRevert {
			activeCtx = reverted
		}
		if propTD != nil {
			var err error
			if activeCtx, err = derive(activeCtx, propTD, derivePropertyScoped, &w.budget); err != nil {
				return "", false, err
			}
		}
	}
	// Type-scoped contexts, in lexicographic order of the types, each on top of the last.
	typeScoped := activeCtx
	typeKey := ""
	for k, v := range elem {
		if top && k == "@context" {
			continue
		}
		e, err := expandIRI(typeScoped.c, k, false, true)
		if err != nil {
			return "", false, errNotFast
		}
		if e != "@type" {
			continue
		}
		if typeKey != "" {
			return "", false, errNotFast // two keys for @type: json-gold's order of keys would matter
		}
		typeKey = k
		types, ok := stringList(v)
		if !ok {
			return "", false, errNotFast
		}
		sort.Strings(types)
		for _, t := range types {
			if td := typeScoped.c.GetTermDefinition(t); td != nil && td.HasContext {
				if activeCtx, err = derive(activeCtx, td, deriveTypeScoped, &w.budget); err != nil {
					return "", false, err
				}
			}
		}
	}

	// expandObject, then toRDF.
	subject, subjectBlank := "", false
	var typeTerms []string
	type pending struct {
		pred string
		obj  object
	}
	var props []pending
	for k, v := range elem {
		if top && k == "@context" {
			continue
		}
		e, err := expandIRI(activeCtx.c, k, false, true)
		if err != nil || e == "" {
			return "", false, errNotFast
		}
		if e[0] == '@' && ld.IsKeyword(e) {
			switch {
			case e == "@id" && subject == "":
				s, ok := v.(string)
				if !ok {
					return "", false, errNotFast
				}
				id, err := expandIRI(activeCtx.c, s, true, false)
				if err != nil || strings.HasPrefix(id, "_:") {
					return "", false, errNotFast
				}
				if subject, ok = iriTerm(id); !ok {
					return "", false, errNotFast
				}
			case e == "@type" && k == typeKey:
				types, _ := stringList(v)
				for _, t := range types {
					iri, err := expandIRI(typeScoped.c, t, true, true)
					if err != nil || strings.HasPrefix(iri, "_:") {
						return "", false, errNotFast
					}
					term, ok := iriTerm(iri)
					if !ok {
						return "", false, errNotFast
					}
					typeTerms = append(typeTerms, term)
				}
			default:
				return "", false, errNotFast
			}
			continue
		}
		// Safe mode refuses a key that does not expand to an IRI; checkExpanded and toRDF want an absolute one.
		pred, ok := iriTerm(e)
		if !ok {
			return "", false, errNotFast
		}
		termCtx := activeCtx
		td := activeCtx.c.GetTermDefinition(k)
		if td != nil && td.HasContext {
			if termCtx, err = derive(activeCtx, td, derivePropertyScoped, &w.budget); err != nil {
				return "", false, err
			}
		}
		if td != nil && td.Type == "@json" {
			return "", false, errNotFast
		}
		if ttd := termCtx.c.GetTermDefinition(k); ttd != nil && (ttd.Reverse || !onlySetContainer(ttd.Container)) {
			return "", false, errNotFast
		}
		items := []any{v}
		if list, ok := v.([]any); ok {
			items = list
		}
		for _, item := range items {
			var obj object
			switch x := item.(type) {
			case nil:
				continue
			case map[string]any:
				if obj.term, obj.blank, err = w.node(termCtx, k, x, false); err != nil {
					return "", false, err
				}
			case string, bool:
				if obj.term, err = scalar(termCtx.c, k, x); err != nil {
					return "", false, err
				}
			default: // numbers (canonical doubles), nested arrays
				return "", false, errNotFast
			}
			props = append(props, pending{pred, obj})
		}
	}
	if subject == "" {
		subject, subjectBlank = "_:f"+strconv.Itoa(w.blanks), true
		w.blanks++
	}
	for _, t := range typeTerms {
		w.quads = append(w.quads, rdfQuad{s: subject, sB: subjectBlank, p: rdfTypeTerm, o: t})
	}
	for _, p := range props {
		w.quads = append(w.quads, rdfQuad{s: subject, sB: subjectBlank, p: p.pred, o: p.obj.term, oB: p.obj.blank})
	}
	return subject, subjectBlank, nil
}

var rdfTypeTerm = "<" + ld.RDFType + ">"

// scalar is json-gold's ExpandValue followed by objectToRDF, for a string or a boolean.
func scalar(c *ld.Context, key string, v any) (string, error) {
	td := c.GetTermDefinition(key)
	s, isString := v.(string)
	if td != nil && (td.Type == "@id" || td.Type == "@vocab") && isString {
		iri, err := expandIRI(c, s, true, td.Type == "@vocab")
		if err != nil || strings.HasPrefix(iri, "_:") {
			return "", errNotFast
		}
		term, ok := iriTerm(iri)
		if !ok {
			return "", errNotFast
		}
		return term, nil
	}
	datatype := ""
	if td != nil && td.Type != "" && td.Type != "@id" && td.Type != "@vocab" && td.Type != "@none" {
		datatype = td.Type
	} else if isString && ((td != nil && (td.HasLanguage || td.HasDirection)) || c.Values.HasLanguage || c.Values.Direction != "") {
		return "", errNotFast // language-tagged strings
	}
	lit := ld.Literal{Value: s, Datatype: datatype}
	if !isString {
		lit.Value = strconv.FormatBool(v.(bool))
	}
	if lit.Datatype == "" {
		lit.Datatype = ld.XSDString
		if !isString {
			lit.Datatype = ld.XSDBoolean
		}
	} else if _, ok := iriTerm(lit.Datatype); !ok {
		return "", errNotFast // @json, or a datatype json-gold would refuse or drop
	}
	return literalTerm(lit), nil
}

// expandIRI is json-gold's Context.ExpandIri outside context processing, answering its common cases (a term, an
// absolute IRI with "//", a blank node label) without the call, which runs a regular expression.
func expandIRI(c *ld.Context, s string, relative, vocab bool) (string, error) {
	if s != "" && s[0] != '@' {
		if vocab {
			if td, ok := c.TermDefinitions[s]; ok {
				if td == nil {
					return "", nil
				}
				return td.ID, nil
			}
		}
		if i := strings.IndexByte(s, ':'); i > 0 && (s[:i] == "_" || strings.HasPrefix(s[i+1:], "//")) {
			return s, nil
		}
	}
	return c.ExpandIri(s, relative, vocab, nil, nil)
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func onlySetContainer(c []string) bool {
	for _, x := range c {
		if x != "@set" {
			return false
		}
	}
	return true
}
