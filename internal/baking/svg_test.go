package baking

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const plainSVG = `<?xml version="1.0" encoding="UTF-8"?>
<!-- badge -->
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">
  <title>Go 기초</title>
  <circle cx="256" cy="256" r="200" fill="#1565c0"/>
</svg>
`

// firstChild parses doc strictly and returns the root, its first child element and the raw text of that child.
func firstChild(t *testing.T, doc []byte) (root, child xml.StartElement, text string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	d.Entity = map[string]string{"ns_svg": "http://www.w3.org/2000/svg"}
	depth := 0
	var sb strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "baked SVG must stay well-formed XML")
		switch tk := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				root = tk
			} else if depth == 2 && child.Name.Local == "" {
				child = tk
			}
		case xml.CharData:
			if depth == 2 && child.Name.Local != "" && text == "" {
				sb.Write(tk)
			}
		case xml.EndElement:
			if depth == 2 && text == "" && child.Name.Local != "" {
				text = sb.String()
			}
			depth--
		}
	}
	return root, child, text
}

func TestBakeSVG_RoundTrip(t *testing.T) {
	out, ct, err := Bake([]byte(plainSVG), testCredential)
	require.NoError(t, err)
	require.Equal(t, ContentTypeSVG, ct)

	root, child, text := firstChild(t, out)
	require.Equal(t, xml.Name{Space: "http://www.w3.org/2000/svg", Local: "svg"}, root.Name)
	require.Contains(t, root.Attr, xml.Attr{Name: xml.Name{Space: "xmlns", Local: "openbadges"}, Value: NamespaceOB3})
	require.Equal(t, xml.Name{Space: NamespaceOB3, Local: "credential"}, child.Name, "credential is the first child")
	require.Equal(t, string(testCredential), text, "CDATA (split around ]]>) carries the exact JSON")
	require.Contains(t, string(out), "<openbadges:credential><![CDATA[{")

	got, err := Unbake(out)
	require.NoError(t, err)
	require.Equal(t, testCredential, got)
	require.True(t, strings.HasSuffix(string(out), "</svg>\n"), "the rest of the document is untouched")
	require.Contains(t, string(out), `<circle cx="256" cy="256" r="200" fill="#1565c0"/>`)
}

func TestBakeSVG_ReplacesExisting(t *testing.T) {
	old := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">` +
		`<openbadges:assertion verify="https://old.example/a/1"></openbadges:assertion>` +
		`<g><openbadges:credential xmlns:openbadges="https://purl.imsglobal.org/ob/v3p0"><![CDATA[{"old":1}]]></openbadges:credential></g>` +
		`<rect width="1" height="1"/></svg>`
	once, _, err := Bake([]byte(old), []byte(`{"first":true}`))
	require.NoError(t, err)
	twice, _, err := Bake(once, testCredential)
	require.NoError(t, err)

	s := string(twice)
	require.Equal(t, 1, strings.Count(s, "<openbadges:credential"), s)
	require.NotContains(t, s, "assertion")
	require.NotContains(t, s, "http://openbadges.org", "the prefix is rebound to the OB 3.0 namespace")
	require.Contains(t, s, `<g></g><rect width="1" height="1"/>`)
	_, child, _ := firstChild(t, twice)
	require.Equal(t, xml.Name{Space: NamespaceOB3, Local: "credential"}, child.Name)
	got, err := Unbake(twice)
	require.NoError(t, err)
	require.Equal(t, testCredential, got)
}

func TestBakeSVG_Variants(t *testing.T) {
	const jws = "eyJhbGciOiJFZERTQSJ9.eyJ2YyI6e319.c2lnbmF0dXJl"
	illustrator := `<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [
	<!ENTITY ns_svg "http://www.w3.org/2000/svg">
]>
<svg version="1.1" xmlns="&ns_svg;" width="10" height="10"><rect width="10" height="10"/></svg>`

	tests := []struct {
		name, svg, cred string
		wantInOutput    string
	}{
		{name: "self-closing root", svg: `<svg xmlns="http://www.w3.org/2000/svg"/>`, cred: `{"a":1}`, wantInOutput: "</svg>"},
		{name: "prefixed root", svg: `<s:svg xmlns:s="http://www.w3.org/2000/svg"><s:g/></s:svg>`, cred: `{"a":1}`},
		{name: "single-quoted namespace", svg: `<svg xmlns='http://www.w3.org/2000/svg' xmlns:openbadges='x'></svg>`, cred: `{"a":1}`,
			wantInOutput: `xmlns:openbadges='https://purl.imsglobal.org/ob/v3p0'`},
		{name: "VC-JWT uses verify", svg: plainSVG, cred: jws, wantInOutput: `<openbadges:credential verify="` + jws + `"></openbadges:credential>`},
		{name: "entities declared in DOCTYPE", svg: illustrator, cred: `{"a":1}`},
		{name: "UTF-8 byte order mark", svg: "\xEF\xBB\xBF" + plainSVG, cred: `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Bake([]byte(tt.svg), []byte(tt.cred))
			require.NoError(t, err)
			require.Contains(t, string(out), tt.wantInOutput)
			_, child, _ := firstChild(t, out)
			require.Equal(t, xml.Name{Space: NamespaceOB3, Local: "credential"}, child.Name)
			got, err := Unbake(out)
			require.NoError(t, err)
			require.Equal(t, tt.cred, string(got))
		})
	}
}

func TestUnbakeSVG_OB2(t *testing.T) {
	doc := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">
  <openbadges:assertion verify="https://issuer.example/assertions/1"><![CDATA[{"ignored":true}]]></openbadges:assertion>
</svg>`
	got, err := Unbake([]byte(doc))
	require.NoError(t, err)
	require.Equal(t, "https://issuer.example/assertions/1", string(got))
}

func TestBakeSVG_Invalid(t *testing.T) {
	for name, doc := range map[string]string{
		"unclosed":        `<svg xmlns="http://www.w3.org/2000/svg"><g></svg>`,
		"truncated":       plainSVG[:len(plainSVG)/2],
		"not svg":         `<html><body/></html>`,
		"two roots":       `<svg/><svg/>`,
		"unknown entity":  `<svg>&nope;</svg>`,
		"only a comment":  `<!-- x -->`,
		"latin1 encoding": `<?xml version="1.0" encoding="ISO-8859-1"?><svg/>`,
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Bake([]byte(doc), testCredential)
			requireBakingError(t, err)
			_, err = Unbake([]byte(doc))
			requireBakingError(t, err)
		})
	}
	_, err := Unbake([]byte(plainSVG))
	require.ErrorIs(t, err, ErrNoCredential)
}
