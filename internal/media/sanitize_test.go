package media

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const png1x1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// externalRefCases are the ways an SVG can make its viewer fetch something: the sanitizer keeps only same-document
// fragments and inline raster images. Each case is the content of a document (svgOpen … </svg>) and what is left of
// it. FuzzSanitizeSVG starts from them too.
var externalRefCases = []struct{ name, in, want string }{
	// Links: href and xlink:href, on every element that takes one.
	{"xlink:href to a file", `<use xlink:href="file:///etc/passwd"/>`, `<use></use>`},
	{"relative href", `<use href="other.svg#a"/>`, `<use></use>`},
	{"protocol-relative href", `<use href="//evil.example/x.svg#a"/>`, `<use></use>`},
	{"use of another document", `<use xlink:href="https://evil.example/sprite.svg#icon" x="1"/>`, `<use x="1"></use>`},
	{"image", `<image href="https://evil.example/t.png" width="1" height="1"/>`, `<image width="1" height="1"></image>`},
	{"feImage", `<filter id="f"><feImage xlink:href="https://evil.example/t.png"/></filter>`, `<filter id="f"><feImage></feImage></filter>`},
	{"a target", `<a xlink:href="https://evil.example/"><text>x</text></a>`, `<a><text>x</text></a>`},
	{"gradient template in another document", `<linearGradient id="g" href="lib.svg#base"/>`, `<linearGradient id="g"></linearGradient>`},
	{"src attribute", `<image src="https://evil.example/t.png"/>`, `<image></image>`},
	{"fragments kept", `<a href="#top"><use xlink:href="#icon"/></a>`, `<a href="#top"><use xlink:href="#icon"></use></a>`},
	{"inline raster images kept", `<image href="` + png1x1 + `"/><image xlink:href=" DATA:image/JPEG;base64,/9j/4AAQ "/>`,
		`<image href="` + png1x1 + `"></image><image xlink:href=" DATA:image/JPEG;base64,/9j/4AAQ "></image>`},
	{"inline svg image", `<image href="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4="/>`, `<image></image>`},
	{"inline svg use", `<use href="data:image/svg+xml,&lt;svg xmlns='http://www.w3.org/2000/svg' id='a'/>#a"/>`, `<use></use>`},
	{"data image with parameters", `<image href="data:image/png;charset=utf-8;base64,iVBORw0K"/>`, `<image></image>`},
	{"data image not base64", `<image href="data:image/png,&lt;script>"/>`, `<image></image>`},
	{"data text", `<image href="data:text/plain;base64,aGk="/>`, `<image></image>`},

	// Namespaces: any prefix bound to XLink, a rebound xlink prefix, xml:base.
	{"other prefix bound to xlink", `<g xmlns:l="http://www.w3.org/1999/xlink"><use l:href="http://evil.example/x.svg#a"/></g>`,
		`<g xmlns:l="http://www.w3.org/1999/xlink"><use></use></g>`},
	{"href in any namespace", `<use xmlns:q="urn:q" q:href="http://evil.example/x.svg#a" q:title="t"/>`, `<use xmlns:q="urn:q" q:title="t"></use>`},
	{"xml:base", `<g xml:base="https://evil.example/"><use href="#a"/></g>`, `<g><use href="#a"></use></g>`},

	// Scheme tricks: case, whitespace and control characters, character references.
	{"mixed-case scheme", `<a href="JaVaScRiPt:alert(1)">x</a>`, `<a>x</a>`},
	{"leading spaces", `<a href="   https://evil.example/">x</a>`, `<a>x</a>`},
	{"entity-encoded scheme", `<use href="&#104;ttp&#x3A;//evil.example/x#a"/>`, `<use></use>`},
	{"entity-encoded fragment kept", `<use href="&#x20;&#x9;&#35;a"/>`, `<use href=" &#9;#a"></use>`},
	{"tab inside the scheme", `<a href="java&#9;script:alert(1)">x</a>`, `<a>x</a>`},

	// CSS: url() in style attributes and presentation attributes, <style> elements, @import, escapes.
	{"style url", `<rect style="fill:url(https://evil.example/p.svg#g);stroke:red"/>`, `<rect></rect>`},
	{"style fragment urls kept", `<rect style="fill:url(#g); stroke: URL( '#h' ); filter:url(&quot;#f&quot;)"/>`,
		`<rect style="fill:url(#g); stroke: URL( '#h' ); filter:url(&quot;#f&quot;)"></rect>`},
	{"presentation attribute url", `<rect fill="url(http://evil.example/p#g)" filter="url(#f)" mask="url(m.svg#m)"/>`, `<rect filter="url(#f)"></rect>`},
	{"css escape in the function name", `<rect style="fill:u\72l(https://evil.example/)"/>`, `<rect></rect>`},
	{"css escape with its space", `<rect style="fill:\75 rl(https://evil.example/)"/>`, `<rect></rect>`},
	{"css escape in the url", `<rect style="fill:url(\68ttps://evil.example/)"/>`, `<rect></rect>`},
	{"escaped quote is not a delimiter", `<rect style="fill:url(\&quot;#a)"/>`, `<rect></rect>`},
	{"entity-encoded url", `<rect style="fill:&#117;rl(https://evil.example/)"/>`, `<rect></rect>`},
	{"comment inside a quoted url", `<rect style="fill:url(&quot;/*#*/x&quot;)"/>`, `<rect></rect>`},
	{"url inside a comment", `<rect style="fill:red /* url(https://evil.example/) */"/>`, `<rect></rect>`},
	{"leading space in a quoted url", `<rect style="fill:url(' https://evil.example/')"/>`, `<rect></rect>`},
	{"image-set", `<rect style="fill:red;background:-webkit-image-set('https://evil.example/x.png' 1x)"/>`, `<rect></rect>`},
	{"style element url", `<style>rect { fill: url(https://evil.example/p.svg#g) }</style><rect/>`, `<rect></rect>`},
	{"style element import", `<style>@import url(https://evil.example/x.css);</style><rect/>`, `<rect></rect>`},
	{"style element import of a string", `<style>@import "x.css";</style><rect/>`, `<rect></rect>`},
	{"style element escaped import", `<style>@\69mport 'x.css';</style><rect/>`, `<rect></rect>`},
	{"style element font", `<style>@font-face { font-family: f; src: url(https://evil.example/f.woff) }</style>`, ``},
	{"style element in CDATA kept", `<style><![CDATA[rect { fill: url(#g) } a > b { stroke: red }]]></style>`,
		`<style>rect { fill: url(#g) } a > b { stroke: red }</style>`},
	{"element inside style", `<style>rect { fill: red }<g>@import "x.css";</g></style>`, `<style>rect { fill: red }</style>`},

	// Elements: script and HTML anywhere, in any namespace, and animations that would write a reference.
	{"script with href", `<script href="https://evil.example/x.js"/><rect/>`, `<rect></rect>`},
	{"xhtml iframe outside foreignObject", `<h:iframe xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/"/>`, ``},
	{"default namespace switched to xhtml", `<g xmlns="http://www.w3.org/1999/xhtml"><img src="https://evil.example/t.png"/></g>`, ``},
	{"svg namespace under a prefix kept", `<s:g xmlns:s="http://www.w3.org/2000/svg"><s:rect fill="red"/></s:g>`,
		`<s:g xmlns:s="http://www.w3.org/2000/svg"><s:rect fill="red"></s:rect></s:g>`},
	{"metadata in other namespaces", `<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="https://evil.example/"/></rdf:RDF></metadata>`,
		`<metadata></metadata>`},
	{"animation of xml:base or src", `<set attributeName="xml:base" to="https://evil.example/"/><set attributeName="src" to="x"/>`, ``},
	{"animation to an external paint", `<animate attributeName="fill" values="url(https://evil.example/p#a);red"/>`,
		`<animate attributeName="fill"></animate>`},
	{"namespaced event handler", `<rect xmlns:e="urn:e" e:onclick="alert(1)" width="1"/>`, `<rect xmlns:e="urn:e" width="1"></rect>`},
}

func TestSanitizeSVG_DropsExternalReferences(t *testing.T) {
	for _, tc := range externalRefCases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := process([]byte(svgOpen+tc.in+`</svg>`), Limits{})
			require.NoError(t, err)
			require.Equal(t, svgOpen+tc.want+`</svg>`, string(res.Original))
			require.Empty(t, externalRefs(t, res.Original))

			again, err := process(res.Original, Limits{})
			require.NoError(t, err)
			require.Equal(t, string(res.Original), string(again.Original), "sanitizing is idempotent")
		})
	}
}
