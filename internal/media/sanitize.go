package media

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// sanitizeSVG re-serializes a document checkSVG accepted, dropping comments, processing instructions (an
// xml-stylesheet one would fetch), script-capable elements, event-handler attributes and script URLs. It reads raw
// tokens so that namespace prefixes are written back exactly as they came.
func sanitizeSVG(data []byte) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var out bytes.Buffer
	out.Grow(len(data))
	skip := 0  // > 0 while inside a dropped element: its nesting depth
	depth := 0 // element nesting of the output; text at depth 0 is whitespace around the root, dropped
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || droppedElement(t) {
				skip++
				continue
			}
			depth++
			out.WriteByte('<')
			writeName(&out, t.Name)
			for _, a := range t.Attr {
				if droppedAttr(a) {
					continue
				}
				out.WriteByte(' ')
				writeName(&out, a.Name)
				out.WriteString(`="`)
				escapeAttr(&out, a.Value)
				out.WriteByte('"')
			}
			out.WriteByte('>')
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			depth--
			out.WriteString("</")
			writeName(&out, t.Name)
			out.WriteByte('>')
		case xml.CharData:
			if skip == 0 && depth > 0 {
				escapeText(&out, t)
			}
		}
		// Comments, processing instructions and directives are dropped (checkSVG refused directives already).
	}
}

// droppedElement reports elements that can run script or embed HTML: <script>, <foreignObject>, and animation
// elements (<set>, <animate>) that would write an event handler or a link target at run time.
func droppedElement(t xml.StartElement) bool {
	switch strings.ToLower(t.Name.Local) {
	case "script", "foreignobject":
		return true
	}
	for _, a := range t.Attr {
		if a.Name.Local != "attributeName" {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(a.Value))
		if i := strings.IndexByte(v, ':'); i >= 0 {
			v = v[i+1:]
		}
		if strings.HasPrefix(v, "on") || v == "href" {
			return true
		}
	}
	return false
}

// droppedAttr reports on* event handlers and any attribute whose value is a script URL. Namespace declarations are
// kept whatever their prefix: dropping one would unbind names the document uses.
func droppedAttr(a xml.Attr) bool {
	if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
		return false
	}
	if len(a.Name.Local) >= 2 && strings.EqualFold(a.Name.Local[:2], "on") {
		return true
	}
	return isScriptURL(a.Value)
}

// isScriptURL reports whether v is a javascript:, vbscript: or data:text/html URL once the whitespace and control
// characters that browsers ignore inside a scheme are removed.
func isScriptURL(v string) bool {
	var b strings.Builder
	for _, r := range v {
		if r <= ' ' || r == 0x7f {
			continue
		}
		b.WriteRune(r)
		if b.Len() >= 16 {
			break
		}
	}
	s := strings.ToLower(b.String())
	return strings.HasPrefix(s, "javascript:") || strings.HasPrefix(s, "vbscript:") || strings.HasPrefix(s, "data:text/html")
}

func writeName(out *bytes.Buffer, n xml.Name) {
	if n.Space != "" {
		out.WriteString(n.Space)
		out.WriteByte(':')
	}
	out.WriteString(n.Local)
}

// escapeText escapes character data. '>' is escaped only after ']' (the one place XML requires it, "]]>") so that
// the output stays close to the input size; the check looks at the output, because adjacent CDATA sections arrive
// as separate tokens.
func escapeText(out *bytes.Buffer, s []byte) {
	for _, c := range s {
		switch {
		case c == '&':
			out.WriteString("&amp;")
		case c == '<':
			out.WriteString("&lt;")
		case c == '>' && out.Len() > 0 && out.Bytes()[out.Len()-1] == ']':
			out.WriteString("&gt;")
		default:
			out.WriteByte(c)
		}
	}
}

func escapeAttr(out *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			out.WriteString("&amp;")
		case '<':
			out.WriteString("&lt;")
		case '"':
			out.WriteString("&quot;")
		default:
			out.WriteByte(c)
		}
	}
}
