package media

import (
	"bytes"
	"errors"
	"image/jpeg"
	"image/png"
	"testing"
)

// FuzzProcess checks that no input panics, that every rejection is a typed *Error, and that accepted output is
// usable: raster variants decode in the original format within their boxes, and a sanitized SVG is accepted again
// unchanged and holds no script.
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
		res, err := Process(data, lim)
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
			again, err := Process(res.Original, lim)
			if err != nil {
				t.Fatalf("sanitized svg rejected: %v\n%q", err, res.Original)
			}
			if !bytes.Equal(again.Original, res.Original) {
				t.Fatalf("sanitize not idempotent:\n%q\n%q", res.Original, again.Original)
			}
			if bytes.Contains(bytes.ToLower(res.Original), []byte("<script")) {
				t.Fatalf("script survived: %q", res.Original)
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
