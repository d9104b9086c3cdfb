package media

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const svgOpen = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 50">`

func TestProcess_SVGSanitizes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantOut string
	}{
		{"clean kept", svgOpen + `<rect x="1" y="2" width="3" height="4" fill="red"/></svg>`,
			svgOpen + `<rect x="1" y="2" width="3" height="4" fill="red"></rect></svg>`},
		{"script element", svgOpen + `<script>alert(1)</script><script type="text/ecmascript"><![CDATA[alert(2)]]></script><circle r="1"/></svg>`,
			svgOpen + `<circle r="1"></circle></svg>`},
		{"script in other namespace and case", svgOpen + `<h:SCRIPT xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:SCRIPT></svg>`,
			svgOpen + `</svg>`},
		{"onload on root", `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)" ONCLICK="x()" width="10" height="10"></svg>`,
			`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>`},
		{"on attributes on child", svgOpen + `<g onmouseover="alert(1)" opacity="0.5"><rect onerror="x" width="1"/></g></svg>`,
			svgOpen + `<g opacity="0.5"><rect width="1"></rect></g></svg>`},
		{"javascript href", svgOpen + `<a href="javascript:alert(1)"><text>x</text></a><a xlink:href=" JaVa&#x09;Script:alert(1)">y</a><a href="&#106;avascript:alert(1)">z</a></svg>`,
			svgOpen + `<a><text>x</text></a><a>y</a><a>z</a></svg>`},
		{"fragment href kept, link target dropped", svgOpen + `<a href="https://example.org/x"><use xlink:href="#id"/></a></svg>`,
			svgOpen + `<a><use xlink:href="#id"></use></a></svg>`},
		{"data html href", svgOpen + `<a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">x</a></svg>`,
			svgOpen + `<a>x</a></svg>`},
		{"animate writing href or handler", svgOpen + `<a><set attributeName="href" to="javascript:alert(1)"/><animate attributeName="xlink:href" values="javascript:alert(1)"/><set attributeName="onclick" to="alert(1)"/><animate attributeName="opacity" values="0;1"/>x</a></svg>`,
			svgOpen + `<a><animate attributeName="opacity" values="0;1"></animate>x</a></svg>`},
		{"foreignObject", svgOpen + `<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"/></body></foreignObject></svg>`,
			svgOpen + `</svg>`},
		{"comments and processing instructions", `<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet href="https://evil.example/x.css"?><!-- made with X -->` + svgOpen + `<!-- secret --></svg>`,
			svgOpen + `</svg>`},
		{"text escaped", svgOpen + `<text>a &lt; b &amp; c > d ]]&gt; "q"</text><style><![CDATA[a > b { fill: red }]]></style></svg>`,
			svgOpen + `<text>a &lt; b &amp; c > d ]]&gt; "q"</text><style>a > b { fill: red }</style></svg>`},
		{"attribute escaped", svgOpen + `<text font-family="&quot;A&quot; &amp; &lt;B&gt;">x</text></svg>`,
			svgOpen + `<text font-family="&quot;A&quot; &amp; &lt;B>">x</text></svg>`},
		{"BOM and leading space", "\xef\xbb\xbf \n" + svgOpen + `</svg>`, svgOpen + `</svg>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := process([]byte(tc.in), Limits{})
			require.NoError(t, err)
			require.Equal(t, tc.wantOut, string(res.Original))
			require.Equal(t, res.Original, res.Medium)
			require.Equal(t, res.Original, res.Small)
			require.Equal(t, ContentTypeSVG, res.ContentType)
			require.Equal(t, "svg", res.Ext)

			// The sanitized document is itself accepted and is a fixed point.
			again, err := process(res.Original, Limits{})
			require.NoError(t, err)
			require.Equal(t, string(res.Original), string(again.Original))
		})
	}
}

func TestProcess_SVGSize(t *testing.T) {
	tests := []struct {
		name         string
		root         string
		wantW, wantH int
	}{
		{"width height", `width="120" height="80" viewBox="0 0 10 10"`, 120, 80},
		{"px units", `width="120.4px" height="79.6px"`, 120, 80},
		{"viewBox only", `viewBox="0 0 300 150"`, 300, 150},
		{"viewBox commas", `viewBox="0,0,300.5,150"`, 301, 150},
		{"percent falls back to viewBox", `width="100%" height="100%" viewBox="0 0 64 48"`, 64, 48},
		{"em unparseable", `width="10em" height="5em"`, 0, 0},
		{"nothing", ``, 0, 0},
		{"negative", `width="-5" height="5"`, 0, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := process([]byte(`<svg xmlns="http://www.w3.org/2000/svg" `+tc.root+`></svg>`), Limits{})
			require.NoError(t, err)
			require.Equal(t, tc.wantW, res.Width)
			require.Equal(t, tc.wantH, res.Height)
		})
	}
}

func TestProcess_SVGRejects(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr error
	}{
		{"doctype", `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` + svgOpen + `</svg>`, ErrUnsafeSVG},
		{"xxe", `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + svgOpen + `<text>&xxe;</text></svg>`, ErrUnsafeSVG},
		{"billion laughs", `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><svg xmlns="http://www.w3.org/2000/svg" a="&lol2;"/>`, ErrUnsafeSVG},
		{"doctype inside root", svgOpen + `<!DOCTYPE x></svg>`, ErrUnsafeSVG},
		{"no namespace", `<svg width="10" height="10"></svg>`, ErrCorrupt},
		{"wrong namespace", `<svg xmlns="http://example.org/svg"></svg>`, ErrCorrupt},
		{"truncated", svgOpen + `<rect width="1"`, ErrCorrupt},
		{"unclosed root", svgOpen + `<rect/>`, ErrCorrupt},
		{"mismatched tags", svgOpen + `<g></rect></svg>`, ErrCorrupt},
		{"undefined entity", svgOpen + `<text>&nbsp;</text></svg>`, ErrCorrupt},
		{"two roots", svgOpen + `</svg>` + svgOpen + `</svg>`, ErrCorrupt},
		{"text after root", svgOpen + `</svg>trailing`, ErrCorrupt},
		{"duplicate attribute", `<svg xmlns="http://www.w3.org/2000/svg" width="1" width="2"></svg>`, ErrCorrupt},
		{"non utf-8 encoding", `<?xml version="1.0" encoding="ISO-8859-1"?>` + svgOpen + `</svg>`, ErrUnsupportedType},
		{"html root", `<html xmlns="http://www.w3.org/1999/xhtml"><svg xmlns="http://www.w3.org/2000/svg"/></html>`, ErrUnsupportedType},
		{"text before any tag", `<!-- hi -->just text`, ErrUnsupportedType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := process([]byte(tc.in), Limits{})
			require.ErrorIs(t, err, tc.wantErr)
			var me *Error
			require.True(t, errors.As(err, &me), "want *Error, got %T", err)
			require.Equal(t, FieldImage, me.Field)
		})
	}
}

func TestProcess_SVGSanitizedSizeCapped(t *testing.T) {
	// A CDATA section of '<' is one byte each in, four bytes each out ("&lt;").
	in := svgOpen + `<text><![CDATA[` + strings.Repeat("<", 1000) + `]]></text></svg>`
	_, err := process([]byte(in), Limits{MaxBytes: len(in) + 100})
	require.ErrorIs(t, err, ErrFileTooLarge)
}
