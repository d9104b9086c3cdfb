package credential

// The quads RDFC-1.0 works on: N-Quads terms in canonical form, from json-gold's dataset.

import (
	"fmt"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// rdfQuad is one quad with every term already in canonical N-Quads form, except blank nodes, which keep their
// input label ("_:b0") so that the algorithm can relabel them.
type rdfQuad struct {
	s, p, o, g    string
	sB, oB, gB    bool // whether the subject, object, graph are blank nodes
	hasGraphLabel bool
}

func (q *rdfQuad) blankNodes() []string {
	var out []string
	if q.sB {
		out = append(out, q.s)
	}
	if q.oB {
		out = append(out, q.o)
	}
	if q.gB {
		out = append(out, q.g)
	}
	return out
}

// serialize writes the quad as one canonical N-Quads line, mapping blank node labels through label.
func (q *rdfQuad) serialize(label func(string) string) string {
	term := func(v string, blank bool) string {
		if blank {
			return label(v)
		}
		return v
	}
	var sb strings.Builder
	sb.Grow(len(q.s) + len(q.p) + len(q.o) + len(q.g) + 24) // one allocation; blank labels are short
	sb.WriteString(term(q.s, q.sB))
	sb.WriteByte(' ')
	sb.WriteString(q.p)
	sb.WriteByte(' ')
	sb.WriteString(term(q.o, q.oB))
	if q.hasGraphLabel {
		sb.WriteByte(' ')
		sb.WriteString(term(q.g, q.gB))
	}
	sb.WriteString(" .\n")
	return sb.String()
}

// toRDFQuad converts a json-gold quad into canonical terms.
func toRDFQuad(q *ld.Quad, graphName string) (rdfQuad, error) {
	var rq rdfQuad
	var err error
	if rq.s, rq.sB, err = nodeTerm(q.Subject); err != nil {
		return rq, err
	}
	if rq.p, _, err = nodeTerm(q.Predicate); err != nil {
		return rq, err
	}
	if rq.o, rq.oB, err = nodeTerm(q.Object); err != nil {
		return rq, err
	}
	g := q.Graph
	if g == nil && graphName != "" && graphName != "@default" {
		if strings.HasPrefix(graphName, "_:") {
			g = ld.NewBlankNode(graphName)
		} else {
			g = ld.NewIRI(graphName)
		}
	}
	if g != nil {
		rq.hasGraphLabel = true
		if rq.g, rq.gB, err = nodeTerm(g); err != nil {
			return rq, err
		}
	}
	return rq, nil
}

// nodeTerm renders a term in canonical N-Quads form; blank nodes are returned as their label.
func nodeTerm(n ld.Node) (string, bool, error) {
	switch v := n.(type) {
	case ld.IRI:
		return "<" + escapeIRI(v.Value) + ">", false, nil
	case *ld.IRI:
		return "<" + escapeIRI(v.Value) + ">", false, nil
	case ld.BlankNode:
		return v.Attribute, true, nil
	case *ld.BlankNode:
		return v.Attribute, true, nil
	case ld.Literal:
		return literalTerm(v), false, nil
	case *ld.Literal:
		return literalTerm(*v), false, nil
	default:
		return "", false, fmt.Errorf("unexpected RDF term %T", n)
	}
}

func literalTerm(l ld.Literal) string {
	s := `"` + escapeLiteral(l.Value) + `"`
	switch {
	case l.Datatype == ld.RDFLangString:
		s += "@" + l.Language
	case l.Datatype != "" && l.Datatype != ld.XSDString:
		s += "^^<" + escapeIRI(l.Datatype) + ">"
	}
	return s
}

// escapeLiteral escapes a string literal as canonical N-Quads requires (RDFC-1.0 / RDF 1.2 N-Quads): ECHAR for
// \b \t \n \f \r " and backslash, UCHAR (upper-case hex) for the other control characters, everything else as is.
// json-gold's own writer leaves \b, \f and the other control characters raw, which changes hashes.
func escapeLiteral(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '"' || r == '\\' }) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		switch r {
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&sb, `\u%04X`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	return sb.String()
}

// escapeIRI escapes the characters that may not appear raw in an IRIREF.
func escapeIRI(s string) string {
	if !strings.ContainsFunc(s, iriNeedsEscape) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if iriNeedsEscape(r) {
			fmt.Fprintf(&sb, `\u%04X`, r)
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func iriNeedsEscape(r rune) bool {
	return r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r)
}
