package baking

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// NamespaceOB3 is the XML namespace of the <openbadges:credential> element (Open Badges 3.0, "SVG Baking").
const NamespaceOB3 = "https://purl.imsglobal.org/ob/v3p0"

// Other namespaces seen on baked SVGs: Open Badges 2.0, and a URL some OB 3.0 implementations used by mistake.
// Elements in them are read by Unbake and replaced by Bake.
const (
	namespaceOB2      = "http://openbadges.org"
	namespaceOB3Alias = "https://purl.imsglobal.org/spec/ob/v3p0"
)

// svgDoc is what one pass of the XML decoder learns about an SVG document.
type svgDoc struct {
	rootStart, rootEnd int      // byte range of the root start tag
	badges             [][2]int // byte ranges of existing badge elements, in document order
	credential         []byte   // the first badge found, OB 3.0 preferred; nil if none
}

// isOB3Credential and isOB2Assertion match badge elements. The bare "openbadges" space is an undeclared prefix,
// which the decoder leaves unresolved.
func isOB3Credential(n xml.Name) bool {
	return n.Local == "credential" && (n.Space == NamespaceOB3 || n.Space == namespaceOB3Alias || n.Space == "openbadges")
}

func isOB2Assertion(n xml.Name) bool {
	return n.Local == "assertion" && (n.Space == namespaceOB2 || n.Space == "openbadges")
}

// entityDecl matches a general entity with a literal value in a DOCTYPE internal subset. SVG editors such as
// Illustrator declare namespaces this way (xmlns="&ns_svg;"); the decoder needs them to parse the file.
var entityDecl = regexp.MustCompile(`<!ENTITY\s+([A-Za-z_][A-Za-z0-9_.-]*)\s+(?:"([^"<&%]*)"|'([^'<&%]*)')\s*>`)

// scanSVG parses the whole document (strict XML, one root element named svg) and records where the root start tag
// and the badge elements are.
func scanSVG(img []byte) (*svgDoc, error) {
	d := xml.NewDecoder(bytes.NewReader(img))
	d.Strict = true
	doc := &svgDoc{rootStart: -1}
	var ob2 []byte
	depth := 0
	for {
		start := int(d.InputOffset())
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("svg: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if depth == 0 && bytes.HasPrefix(t, []byte("DOCTYPE")) {
				d.Entity = declaredEntities(t)
			}
		case xml.StartElement:
			if depth == 0 {
				if doc.rootStart >= 0 {
					return nil, errors.New("svg: more than one root element")
				}
				if t.Name.Local != "svg" {
					return nil, fmt.Errorf("svg: root element is <%s>, not <svg>", t.Name.Local)
				}
				doc.rootStart, doc.rootEnd = start, int(d.InputOffset())
				depth++
				continue
			}
			ob3, ob2el := isOB3Credential(t.Name), isOB2Assertion(t.Name)
			if !ob3 && !ob2el {
				depth++
				continue
			}
			text, err := badgeContent(d, t)
			if err != nil {
				return nil, fmt.Errorf("svg: read <%s>: %w", t.Name.Local, err)
			}
			doc.badges = append(doc.badges, [2]int{start, int(d.InputOffset())})
			switch {
			case ob3 && doc.credential == nil:
				doc.credential = text
			case ob2el && ob2 == nil:
				ob2 = text
			}
		case xml.EndElement:
			depth--
		}
	}
	if doc.rootStart < 0 {
		return nil, errors.New("svg: no root element")
	}
	if doc.credential == nil {
		doc.credential = ob2
	}
	return doc, nil
}

// declaredEntities returns the literal general entities declared in a DOCTYPE directive, on top of the XML ones.
func declaredEntities(doctype []byte) map[string]string {
	m := make(map[string]string)
	for _, e := range entityDecl.FindAllSubmatch(doctype, 256) {
		m[string(e[1])] = string(e[2]) + string(e[3])
	}
	return m
}

// badgeContent consumes a badge element and returns its verify attribute (VC-JWT, or an OB 2.0 hosted URL) if set,
// else its character data with surrounding white space trimmed. The result is never nil, so that an empty element
// still counts as found.
func badgeContent(d *xml.Decoder, start xml.StartElement) ([]byte, error) {
	verify := ""
	for _, a := range start.Attr {
		if a.Name.Local == "verify" {
			verify = strings.TrimSpace(a.Value)
		}
	}
	var text []byte
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if len(text)+len(t) > MaxCredentialBytes {
				return nil, fmt.Errorf("credential exceeds %d bytes", MaxCredentialBytes)
			}
			text = append(text, t...)
		}
	}
	if verify != "" {
		return []byte(verify), nil
	}
	return append([]byte{}, bytes.TrimSpace(text)...), nil
}

// bakeSVG returns img with every badge element removed and one <openbadges:credential> element inserted as the first
// child of the root, whose start tag gets xmlns:openbadges bound to NamespaceOB3.
func bakeSVG(img, credential []byte) ([]byte, error) {
	doc, err := scanSVG(img)
	if err != nil {
		return nil, err
	}
	tag := img[doc.rootStart:doc.rootEnd]
	newTag, qname, selfClosing, err := bindNamespace(tag)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(img) + len(credential) + 256)
	b.Write(img[:doc.rootStart])
	b.Write(newTag)
	b.WriteString("\n")
	writeCredentialElement(&b, credential)
	pos := doc.rootEnd
	for _, r := range doc.badges {
		b.Write(img[pos:r[0]])
		pos = r[1]
	}
	if selfClosing {
		fmt.Fprintf(&b, "\n</%s>", qname)
	}
	b.Write(img[pos:])
	return b.Bytes(), nil
}

// writeCredentialElement writes the badge element: a compact JWS goes into the verify attribute, JSON into a CDATA
// section (a "]]>" inside the JSON is split across two sections).
func writeCredentialElement(b *bytes.Buffer, credential []byte) {
	c := bytes.TrimSpace(credential)
	if isCompactJWS(c) {
		b.WriteString(`<openbadges:credential verify="`)
		_ = xml.EscapeText(b, c) // writes to a bytes.Buffer cannot fail
		b.WriteString(`"></openbadges:credential>`)
		return
	}
	b.WriteString("<openbadges:credential><![CDATA[")
	b.Write(bytes.ReplaceAll(credential, []byte("]]>"), []byte("]]]]><![CDATA[>")))
	b.WriteString("]]></openbadges:credential>")
}

// isCompactJWS reports whether c looks like header.payload.signature in base64url.
func isCompactJWS(c []byte) bool {
	if bytes.Count(c, []byte(".")) != 2 {
		return false
	}
	for _, ch := range c {
		ok := ch == '.' || ch == '-' || ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
			(ch >= 'A' && ch <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// bindNamespace rewrites a root start tag so that xmlns:openbadges is NamespaceOB3 (added, or its value replaced)
// and turns a self-closing tag into an open one. It returns the tag, the root's qualified name and whether the tag
// was self-closing. The tag was already accepted by the XML decoder, so a simple attribute scan is exact.
func bindNamespace(tag []byte) (out []byte, qname string, selfClosing bool, err error) {
	i := 1 // after '<'
	for i < len(tag) && !isXMLSpace(tag[i]) && tag[i] != '>' && tag[i] != '/' {
		i++
	}
	qname = string(tag[1:i])
	valStart, valEnd := -1, -1
	for {
		for i < len(tag) && isXMLSpace(tag[i]) {
			i++
		}
		if i >= len(tag) {
			return nil, "", false, errors.New("svg: unterminated root tag")
		}
		if tag[i] == '>' || tag[i] == '/' {
			break
		}
		nameStart := i
		for i < len(tag) && tag[i] != '=' && !isXMLSpace(tag[i]) {
			i++
		}
		name := string(tag[nameStart:i])
		for i < len(tag) && (isXMLSpace(tag[i]) || tag[i] == '=') {
			i++
		}
		if i >= len(tag) || (tag[i] != '"' && tag[i] != '\'') {
			return nil, "", false, errors.New("svg: unquoted attribute in root tag")
		}
		q := tag[i]
		end := bytes.IndexByte(tag[i+1:], q)
		if end < 0 {
			return nil, "", false, errors.New("svg: unterminated attribute in root tag")
		}
		if name == "xmlns:openbadges" {
			valStart, valEnd = i+1, i+1+end
		}
		i += end + 2
	}
	selfClosing = tag[i] == '/'
	out = make([]byte, 0, len(tag)+len(NamespaceOB3)+32)
	if valStart >= 0 {
		out = append(out, tag[:valStart]...)
		out = append(out, NamespaceOB3...)
		out = append(out, tag[valEnd:i]...)
	} else {
		out = append(out, tag[:i]...)
		out = append(out, ` xmlns:openbadges="`+NamespaceOB3+`"`...)
	}
	return append(out, '>'), qname, selfClosing, nil
}

// isXMLSpace reports whether b is XML white space.
func isXMLSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// unbakeSVG returns the credential of the first badge element (OB 3.0 preferred over OB 2.0).
func unbakeSVG(img []byte) ([]byte, error) {
	doc, err := scanSVG(img)
	if err != nil {
		return nil, err
	}
	if len(doc.credential) == 0 {
		return nil, ErrNoCredential
	}
	return doc.credential, nil
}
