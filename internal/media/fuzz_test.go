package media

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/jpeg"
	"image/png"
	"io"
	"regexp"
	"strings"
	"testing"
)

// FuzzProcess checks that no input panics, that every rejection is a typed *Error, and that accepted output is
// usable: raster variants decode in the original format within their boxes, and a sanitized SVG is accepted again
// unchanged and holds no script and no external reference.
func FuzzProcess(f *testing.F) {
	f.Add(mustPNG(f, 40, 30))
	f.Add(mustJPEG(f, 40, 30))
	f.Add(mustGIF(f, 4, 4))
	f.Add(hugePNGHeader(100000, 100000))
	f.Add(hugeJPEGHeader(60000, 60000))
	f.Add(withPNGText(f, mustPNG(f, 8, 8), "k", "v"))
	f.Add([]byte(svgOpen + `<script>alert(1)</script><a href="javascript:x" onclick="y"><text>&lt;]]&gt;</text></a></svg>`))
	f.Add([]byte(`<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>`))
	f.Add([]byte(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:p="urn:x" p:onx="1"><![CDATA[]]]]><![CDATA[>]]></svg>`))
	f.Add([]byte("<html><body>hi</body></html>"))
	f.Add([]byte("%PDF-1.4"))

	// Small limits keep each iteration cheap: the fuzzer explores parsing, not big allocations.
	lim := Limits{MaxBytes: 1 << 20, MaxPixels: 1 << 20, MaxWidth: 2048, MaxHeight: 2048}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := process(data, lim)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			for _, kind := range []error{ErrUnsupportedType, ErrFileTooLarge, ErrTooLarge, ErrTooManyPixels, ErrCorrupt, ErrUnsafeSVG} {
				if errors.Is(err, kind) {
					return
				}
			}
			t.Fatalf("error without a known kind: %v", err)
		}
		switch res.ContentType {
		case ContentTypePNG, ContentTypeJPEG:
			checkRasterVariant(t, res, res.Medium, MediumBox)
			checkRasterVariant(t, res, res.Small, SmallBox)
		case ContentTypeSVG:
			again, err := process(res.Original, lim)
			if err != nil {
				t.Fatalf("sanitized svg rejected: %v\n%q", err, res.Original)
			}
			if !bytes.Equal(again.Original, res.Original) {
				t.Fatalf("sanitize not idempotent:\n%q\n%q", res.Original, again.Original)
			}
			if refs := externalRefs(t, res.Original); len(refs) > 0 {
				t.Fatalf("external references survived: %q\nin %q", refs, res.Original)
			}
		default:
			t.Fatalf("unexpected content type %q", res.ContentType)
		}
	})
}

func checkRasterVariant(t *testing.T, res Result, data []byte, box int) {
	t.Helper()
	var err error
	var w, h int
	if res.ContentType == ContentTypePNG {
		img, e := png.Decode(bytes.NewReader(data))
		err = e
		if e == nil {
			w, h = img.Bounds().Dx(), img.Bounds().Dy()
		}
	} else {
		img, e := jpeg.Decode(bytes.NewReader(data))
		err = e
		if e == nil {
			w, h = img.Bounds().Dx(), img.Bounds().Dy()
		}
	}
	if err != nil {
		t.Fatalf("variant does not decode as %s: %v", res.ContentType, err)
	}
	if w > box || h > box || w > res.Width || h > res.Height || w < 1 || h < 1 {
		t.Fatalf("variant %dx%d for %dx%d original, box %d", w, h, res.Width, res.Height, box)
	}
}

// FuzzSanitizeSVG mutates the content of an SVG document, starting from every external-reference case, and checks
// that whatever is accepted comes out with no external reference, parses, and is a fixed point of sanitizing.
func FuzzSanitizeSVG(f *testing.F) {
	for _, tc := range externalRefCases {
		f.Add(tc.in)
	}
	lim := Limits{MaxBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, content string) {
		res, err := process([]byte(svgOpen+content+`</svg>`), lim)
		if err != nil {
			return // FuzzProcess checks rejections
		}
		if refs := externalRefs(t, res.Original); len(refs) > 0 {
			t.Fatalf("external references survived: %q\nin %q", refs, res.Original)
		}
		again, err := process(res.Original, lim)
		if err != nil {
			t.Fatalf("sanitized svg rejected: %v\n%q", err, res.Original)
		}
		if !bytes.Equal(again.Original, res.Original) {
			t.Fatalf("sanitize not idempotent:\n%q\n%q", res.Original, again.Original)
		}
	})
}

// inDocumentPattern is what an href or src may hold, written independently of inDocumentURL: a fragment or an
// inline PNG, JPEG, GIF or WebP, with the spaces and controls a URL parser strips around it.
var inDocumentPattern = regexp.MustCompile(`(?i)^[\x00-\x20]*(#.*|data:image/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*)$`)

// externalRefs re-parses a sanitized document with encoding/xml's namespace resolution (not the sanitizer's) and
// lists what would make a viewer fetch or run something: an element outside the SVG namespace or able to run script,
// an event handler, xml:base, an href or src that does not match inDocumentPattern, CSS that cssSafe refuses.
func externalRefs(tb testing.TB, doc []byte) []string {
	tb.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	var found []string
	inStyle := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return found
		}
		if err != nil {
			tb.Fatalf("sanitized svg does not parse: %v\n%q", err, doc)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch strings.ToLower(t.Name.Local) {
			case "script", "foreignobject", "handler", "listener":
				found = append(found, "element "+t.Name.Local)
			}
			if t.Name.Space != svgNS {
				found = append(found, "element outside the SVG namespace: "+t.Name.Space+" "+t.Name.Local)
			}
			inStyle = t.Name.Local == "style"
			for _, a := range t.Attr {
				local := strings.ToLower(a.Name.Local)
				switch {
				case a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns"):
				case strings.HasPrefix(local, "on"):
					found = append(found, "event handler "+a.Name.Local)
				case a.Name.Space == xmlNS && local == "base":
					found = append(found, "xml:base")
				case local == "href" || local == "src":
					if !inDocumentPattern.MatchString(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(a.Value)) {
						found = append(found, a.Name.Local+"="+a.Value)
					}
				case !cssSafe(a.Value):
					found = append(found, a.Name.Local+"="+a.Value)
				case a.Name.Local == "attributeName":
					// An animation writing a link, a base or a handler would bring one back at run time.
					target := strings.ToLower(strings.TrimSpace(a.Value))
					target = target[strings.LastIndexByte(target, ':')+1:]
					if target == "href" || target == "src" || target == "base" || strings.HasPrefix(target, "on") {
						found = append(found, "animation of "+a.Value)
					}
				}
			}
		case xml.EndElement:
			inStyle = false
		case xml.CharData:
			if inStyle && !cssSafe(string(t)) {
				found = append(found, "style "+string(t))
			}
		}
	}
}
