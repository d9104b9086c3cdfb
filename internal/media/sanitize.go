package media

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

const xmlNS = "http://www.w3.org/XML/1998/namespace" // the namespace of the xml prefix, bound without a declaration

// sanitizeSVG re-serializes a document checkSVG accepted, keeping only what renders from the document itself:
//
//   - elements outside the SVG namespace are dropped with their content (an XHTML <iframe> or <script> runs wherever
//     it is in the tree; RDF metadata and editor state go too), and so are <script>, <foreignObject>, <handler>,
//     <listener> and animations that would write an event handler or a link at run time;
//   - on* event handlers and xml:base are dropped;
//   - href and src, whatever their prefix, are kept only for a same-document fragment (#id) or an inline PNG, JPEG,
//     GIF or WebP (data:image/…;base64): no other URL, relative, absolute or data:image/svg+xml, survives;
//   - any other attribute, a presentation attribute or style, is dropped if cssSafe finds a reference in it, and a
//     <style> element with one is dropped whole;
//   - comments and processing instructions (an xml-stylesheet one would fetch) are dropped.
//
// Values are judged as the XML parser decoded them, so character references (&#106;avascript:) hide nothing. Raw
// tokens are read so that namespace prefixes are written back exactly as they came; namespaces are resolved here.
func sanitizeSVG(data []byte) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var (
		out   bytes.Buffer
		ns    nsScopes
		skip  int             // > 0 while inside a dropped element: its nesting depth
		depth int             // element nesting of the output; text at depth 0 is whitespace around the root, dropped
		style = -1            // output offset of an open <style> start tag, -1 when none is open
		css   strings.Builder // the text of the open <style>
	)
	out.Grow(len(data))
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
			if skip > 0 || style >= 0 { // a <style> has text only: an element in it is dropped
				skip++
				continue
			}
			ns.push(t.Attr)
			name := ns.element(t.Name)
			if droppedElement(name, t) {
				ns.pop()
				skip++
				continue
			}
			depth++
			if strings.EqualFold(name.Local, "style") { // droppedElement kept only the SVG namespace
				style = out.Len()
				css.Reset()
			}
			out.WriteByte('<')
			writeName(&out, t.Name)
			for _, a := range t.Attr {
				if droppedAttr(ns.attr(a.Name), a.Value) {
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
			ns.pop()
			depth--
			if style >= 0 {
				if !cssSafe(css.String()) {
					out.Truncate(style) // the whole <style>, start tag included
					style = -1
					continue
				}
				style = -1
			}
			out.WriteString("</")
			writeName(&out, t.Name)
			out.WriteByte('>')
		case xml.CharData:
			if skip == 0 && depth > 0 {
				if style >= 0 {
					css.Write(t)
				}
				escapeText(&out, t)
			}
		}
		// Comments, processing instructions and directives are dropped (checkSVG refused directives already).
	}
}

// droppedElement reports an element dropped with its content: outside the SVG namespace, able to run script or
// embed HTML, or an animation that would set an event handler, a link or the base URL at run time.
func droppedElement(name xml.Name, t xml.StartElement) bool {
	if name.Space != svgNS {
		return true
	}
	switch strings.ToLower(name.Local) {
	case "script", "foreignobject", "handler", "listener":
		return true
	}
	for _, a := range t.Attr {
		if a.Name.Space != "" || a.Name.Local != "attributeName" {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(a.Value))
		if i := strings.IndexByte(v, ':'); i >= 0 {
			v = v[i+1:]
		}
		if strings.HasPrefix(v, "on") || v == "href" || v == "src" || v == "base" {
			return true
		}
	}
	return false
}

// droppedAttr reports an attribute, named with its namespace resolved, that must not be written. Namespace
// declarations are kept whatever their value: dropping one would unbind names the document uses, and a namespace
// name is never fetched.
func droppedAttr(name xml.Name, value string) bool {
	local := strings.ToLower(name.Local)
	switch {
	case name.Space == "xmlns" || (name.Space == "" && name.Local == "xmlns"):
		return false
	case strings.HasPrefix(local, "on"):
		return true
	case name.Space == xmlNS && local == "base":
		return true
	case local == "href" || local == "src":
		return !inDocumentURL(value)
	}
	return isScriptURL(value) || !cssSafe(value)
}

// inDocumentURL reports whether a link stays inside the document: a fragment (#id) or an inline raster image
// (data:image/png, jpeg, gif or webp, base64). Not data:image/svg+xml, a document that could carry script.
func inDocumentURL(v string) bool {
	v = normalizeURL(v)
	if strings.HasPrefix(v, "#") {
		return true
	}
	const scheme = "data:image/"
	if len(v) < len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) {
		return false
	}
	mime, payload, ok := strings.Cut(v[len(scheme):], ",")
	if !ok {
		return false
	}
	switch strings.ToLower(mime) {
	case "png;base64", "jpeg;base64", "gif;base64", "webp;base64":
	default:
		return false
	}
	return strings.Trim(payload, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \f") == ""
}

// normalizeURL does to a URL what a browser's URL parser does before reading it: strips leading and trailing C0
// controls and spaces, and removes every tab and newline.
func normalizeURL(v string) string {
	v = strings.TrimFunc(v, func(r rune) bool { return r <= ' ' })
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, v)
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

// nsScopes resolves namespace prefixes of raw tokens: one frame of declarations per open element.
type nsScopes []map[string]string

// push opens an element's scope with the declarations among its attributes (xmlns="…" binds the prefix "").
func (s *nsScopes) push(attrs []xml.Attr) {
	var frame map[string]string
	for _, a := range attrs {
		prefix, ok := "", false
		switch {
		case a.Name.Space == "xmlns":
			prefix, ok = a.Name.Local, true
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			ok = true
		}
		if ok {
			if frame == nil {
				frame = map[string]string{}
			}
			frame[prefix] = a.Value
		}
	}
	*s = append(*s, frame)
}

func (s *nsScopes) pop() { *s = (*s)[:len(*s)-1] }

func (s nsScopes) lookup(prefix string) string {
	if prefix == "xml" {
		return xmlNS
	}
	for i := len(s) - 1; i >= 0; i-- {
		if v, ok := s[i][prefix]; ok {
			return v
		}
	}
	return "" // unbound: no namespace that anything interprets
}

// element resolves an element name: no prefix takes the default namespace.
func (s nsScopes) element(n xml.Name) xml.Name {
	return xml.Name{Space: s.lookup(n.Space), Local: n.Local}
}

// attr resolves an attribute name: no prefix means no namespace; declarations keep the "xmlns" space.
func (s nsScopes) attr(n xml.Name) xml.Name {
	if n.Space == "" || n.Space == "xmlns" {
		return n
	}
	return xml.Name{Space: s.lookup(n.Space), Local: n.Local}
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

// escapeAttr escapes an attribute value. Tabs and newlines are written as character references: literal ones would
// be normalized to spaces by the next XML parser, changing the value that was checked.
func escapeAttr(out *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			out.WriteString("&amp;")
		case '<':
			out.WriteString("&lt;")
		case '"':
			out.WriteString("&quot;")
		case '\t':
			out.WriteString("&#9;")
		case '\n':
			out.WriteString("&#10;")
		case '\r':
			out.WriteString("&#13;")
		default:
			out.WriteByte(c)
		}
	}
}
