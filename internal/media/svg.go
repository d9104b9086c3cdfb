package media

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

const svgNS = "http://www.w3.org/2000/svg"

// processSVG validates and sanitizes an SVG upload.
//
// SVG safety has two layers on purpose. The serving headers (ServeHeaders: a CSP with sandbox and default-src 'none',
// plus nosniff) are what actually stops scripts and fetches: browsers honour them whether the SVG is opened directly
// or not. But stored SVGs also leave the service (baked badges, PDFs, downloads opened from disk, other viewers)
// where our headers do not travel, so sanitizeSVG also strips scripts, event handlers and every reference to
// anything outside the document.
func processSVG(data []byte, lim Limits) (Result, error) {
	// encoding/xml would read a byte-order mark as text before the root.
	data = bytes.TrimPrefix(data, utf8BOM)
	info, err := checkSVG(data)
	if err != nil {
		return Result{}, err
	}
	clean, err := sanitizeSVG(data)
	if err != nil {
		// checkSVG accepted the same bytes, so this is a parser disagreement, not a client error.
		return Result{}, fmt.Errorf("sanitize svg: %w", err)
	}
	// Re-escaping can lengthen text (a CDATA section of '<' grows four-fold): keep the stored size within the cap.
	if len(clean) > lim.MaxBytes {
		return Result{}, reject(ErrFileTooLarge, nil, "sanitized SVG is %d bytes, the limit is %d", len(clean), lim.MaxBytes)
	}
	return Result{
		ContentType: ContentTypeSVG, Ext: "svg", Width: info.width, Height: info.height,
		Original: clean, Medium: clean, Small: clean,
	}, nil
}

type svgInfo struct{ width, height int }

// checkSVG parses data strictly (well-formed XML, only the predefined entities, UTF-8) and requires a single root
// <svg> element in the SVG namespace and no DOCTYPE/ENTITY declaration anywhere.
func checkSVG(data []byte) (svgInfo, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = refuseCharset
	var (
		info       svgInfo
		depth      int
		rootSeen   bool
		rootClosed bool
		doctype    bool
	)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errNotUTF8) {
			return svgInfo{}, reject(ErrUnsupportedType, err, "SVG must be encoded in UTF-8")
		}
		if err != nil {
			if !rootSeen {
				// Not even a root element: text, HTML or garbage that happens to start with '<'.
				return svgInfo{}, reject(ErrUnsupportedType, err, "content is not a PNG, JPEG or SVG image")
			}
			return svgInfo{}, reject(ErrCorrupt, err, "SVG is not well-formed XML")
		}
		switch t := tok.(type) {
		case xml.Directive:
			if bytes.Contains(bytes.ToUpper(t), []byte("ENTITY")) || rootSeen {
				return svgInfo{}, reject(ErrUnsafeSVG, nil, "SVG must not contain DOCTYPE or ENTITY declarations")
			}
			// A plain DOCTYPE before the root: decide once the root says whether this is SVG or, say, HTML.
			doctype = true
		case xml.StartElement:
			if rootClosed {
				return svgInfo{}, reject(ErrCorrupt, nil, "SVG has more than one root element")
			}
			if !rootSeen {
				rootSeen = true
				if t.Name.Local != "svg" {
					return svgInfo{}, reject(ErrUnsupportedType, nil, "content is not a PNG, JPEG or SVG image (root element <%s>)", t.Name.Local)
				}
				if t.Name.Space != svgNS {
					return svgInfo{}, reject(ErrCorrupt, nil, "root <svg> must declare xmlns=%q", svgNS)
				}
				if doctype {
					return svgInfo{}, reject(ErrUnsafeSVG, nil, "SVG must not contain DOCTYPE or ENTITY declarations")
				}
				info = svgSize(t.Attr)
			}
			if err := checkDuplicateAttrs(t); err != nil {
				return svgInfo{}, err
			}
			depth++
		case xml.EndElement:
			depth--
			if depth == 0 {
				rootClosed = true
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				if !rootSeen {
					return svgInfo{}, reject(ErrUnsupportedType, nil, "content is not a PNG, JPEG or SVG image")
				}
				return svgInfo{}, reject(ErrCorrupt, nil, "SVG has text outside the root element")
			}
		}
	}
	if !rootSeen {
		return svgInfo{}, reject(ErrUnsupportedType, nil, "content is not a PNG, JPEG or SVG image")
	}
	if !rootClosed {
		return svgInfo{}, reject(ErrCorrupt, nil, "SVG is truncated")
	}
	return info, nil
}

var errNotUTF8 = errors.New("declared encoding is not UTF-8")

// refuseCharset is the decoder's CharsetReader: it is only called for encodings other than UTF-8, which are refused
// so that the stored document is the UTF-8 that sanitizeSVG writes.
func refuseCharset(label string, _ io.Reader) (io.Reader, error) {
	return nil, fmt.Errorf("%w: %q", errNotUTF8, label)
}

// checkDuplicateAttrs refuses an element that repeats an attribute: encoding/xml accepts it, browsers do not.
func checkDuplicateAttrs(t xml.StartElement) error {
	for i, a := range t.Attr {
		for _, b := range t.Attr[:i] {
			if a.Name == b.Name {
				return reject(ErrCorrupt, nil, "SVG element <%s> repeats attribute %q", t.Name.Local, a.Name.Local)
			}
		}
	}
	return nil
}

// svgSize reads the intrinsic size from the root's width/height (unitless or px) or else from its viewBox; a side
// that neither gives in absolute units is 0.
func svgSize(attrs []xml.Attr) svgInfo {
	var w, h, vb string
	for _, a := range attrs {
		if a.Name.Space != "" {
			continue
		}
		switch a.Name.Local {
		case "width":
			w = a.Value
		case "height":
			h = a.Value
		case "viewBox":
			vb = a.Value
		}
	}
	info := svgInfo{width: parseLength(w), height: parseLength(h)}
	if info.width > 0 && info.height > 0 {
		return info
	}
	f := strings.FieldsFunc(vb, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(f) == 4 {
		vw, vh := parseLength(f[2]), parseLength(f[3])
		if vw > 0 && vh > 0 {
			return svgInfo{width: vw, height: vh}
		}
	}
	return info
}

// parseLength parses a non-negative SVG length in user units or px, rounded; anything else (%, em, garbage) is 0.
func parseLength(s string) int {
	s = strings.TrimSuffix(strings.TrimSpace(s), "px")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v > math.MaxInt32 || math.IsNaN(v) {
		return 0
	}
	return int(math.Round(v))
}
