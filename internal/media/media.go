// Package media validates uploaded badge images (PNG, JPEG, SVG) and produces the stored variants.
//
// It imports nothing of the module.
package media

import (
	"bytes"
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Content types of the accepted formats, as returned in Result.ContentType.
const (
	ContentTypePNG  = "image/png"
	ContentTypeJPEG = "image/jpeg"
	ContentTypeSVG  = "image/svg+xml"
)

// Default limits, used for any zero field of Limits.
const (
	DefaultMaxBytes     = 5 << 20
	DefaultMaxPixels    = 40_000_000
	DefaultMaxWidth     = 8192
	DefaultMaxHeight    = 8192
	DefaultDecodeBudget = 256 << 20
)

// Variant box sizes: a variant fits within Box x Box and is never upscaled.
const (
	MediumBox = 512
	SmallBox  = 128
)

// Limits bounds what a Processor accepts. A zero field takes its default.
type Limits struct {
	MaxBytes  int // upload size in bytes (default 5 MiB)
	MaxPixels int // width*height of a raster image (default 40 megapixels)
	MaxWidth  int // raster width in pixels (default 8192)
	MaxHeight int // raster height in pixels (default 8192)
	// DecodeBudget is the memory in bytes that the raster decodes of one Processor may hold at once, all calls
	// together (default 256 MiB). Each decode is charged what it allocates, estimated from the header before any
	// pixel is decoded (decodeCost); a decode whose charge exceeds the whole budget is refused.
	DecodeBudget int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.MaxWidth <= 0 {
		l.MaxWidth = DefaultMaxWidth
	}
	if l.MaxHeight <= 0 {
		l.MaxHeight = DefaultMaxHeight
	}
	if l.DecodeBudget <= 0 {
		l.DecodeBudget = DefaultDecodeBudget
	}
	return l
}

// Processor checks uploads against its Limits and decodes them within its decode budget, shared by all its calls:
// a service has one for all its requests. It is safe for concurrent use.
type Processor struct {
	lim     Limits
	budget  *semaphore.Weighted // weighted by bytes; FIFO, so a large decode is not starved by small ones
	waiting atomic.Int64        // decodes waiting in acquire
}

// NewProcessor returns a Processor for lim, zero fields taking their defaults.
func NewProcessor(lim Limits) *Processor {
	lim = lim.withDefaults()
	return &Processor{lim: lim, budget: semaphore.NewWeighted(lim.DecodeBudget)}
}

// Limits returns the limits in force, defaults filled in.
func (p *Processor) Limits() Limits { return p.lim }

// Result is an accepted image and its variants.
//
// For PNG and JPEG, Original is the uploaded bytes unchanged (it aliases the input slice) and Medium/Small are
// re-encoded in the same format, which drops all metadata. For SVG, Original, Medium and Small are the same
// sanitized document (one shared slice): a vector image needs no resampling.
type Result struct {
	ContentType string // ContentTypePNG, ContentTypeJPEG or ContentTypeSVG
	Ext         string // "png", "jpg" or "svg"
	Width       int    // pixels; for SVG from width/height or viewBox, 0 when not given in absolute units
	Height      int
	Original    []byte
	Medium      []byte // fits within MediumBox x MediumBox
	Small       []byte // fits within SmallBox x SmallBox
}

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xff, 0xd8, 0xff}
	utf8BOM   = []byte{0xef, 0xbb, 0xbf}
)

// Process sniffs data (the client's Content-Type and filename are never consulted), checks it against the limits and
// returns the variants. Raster dimensions are checked from the header before any pixel is decoded, so a small file
// claiming a huge canvas is refused without allocating it; then the decode waits, at most until ctx ends, until
// the decode budget can hold what it will allocate.
//
// Every rejection is an *Error wrapping one of ErrUnsupportedType, ErrFileTooLarge, ErrTooLarge, ErrTooManyPixels,
// ErrCorrupt or ErrUnsafeSVG. Any other error is ctx's (wrapped) or an internal failure (encoding a variant).
func (p *Processor) Process(ctx context.Context, data []byte) (Result, error) {
	lim := p.lim
	if len(data) == 0 {
		return Result{}, reject(ErrCorrupt, nil, "file is empty")
	}
	if len(data) > lim.MaxBytes {
		return Result{}, reject(ErrFileTooLarge, nil, "file is %d bytes, the limit is %d", len(data), lim.MaxBytes)
	}
	switch {
	case bytes.HasPrefix(data, pngMagic):
		return p.processRaster(ctx, data, formatPNG)
	case bytes.HasPrefix(data, jpegMagic):
		return p.processRaster(ctx, data, formatJPEG)
	case looksLikeXML(data):
		return processSVG(data, lim)
	}
	return Result{}, reject(ErrUnsupportedType, nil, "content is not a PNG, JPEG or SVG image")
}

// looksLikeXML reports whether the first non-space byte (after an optional UTF-8 BOM) opens a markup tag; only then
// is the content worth parsing as SVG.
func looksLikeXML(data []byte) bool {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	return len(data) > 0 && data[0] == '<'
}
