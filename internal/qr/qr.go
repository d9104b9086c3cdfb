// Package qr draws QR codes at error correction level M: the layout, Reed-Solomon codewords, version and format
// information come from rsc.io/qr/coding, and the mask is the one the standard's penalty rules score lowest
// (penalty.go). The notify step draws one code per recipient, so the cost counts: go-qrcode, used before, spent
// ~1.2 ms per offer link, most of it in allocations of its bit sets and Reed-Solomon polynomials; here the
// codewords are computed once, each mask's layout (a Plan) is built once per version and kept, the eight
// candidates are drawn into reused buffers as bit rows and columns, and scored a line at a time.
//
// Imports only rsc.io/qr/coding.
package qr

import (
	"errors"
	"sync"

	"rsc.io/qr/coding"
)

// Code is a QR code's grid of modules, without the quiet zone.
type Code struct {
	Size int
	rows []line
}

// Dark reports whether the module at column x, row y is dark.
func (c *Code) Dark(x, y int) bool { return c.rows[y].bit(x) }

// level is the error correction level of every code here: M recovers ~15% of the codewords, enough for a code
// shown on a screen or printed on a certificate, and smaller than Q or H.
const level = coding.M

// ErrTooLong is returned for text that does not fit the largest QR code (version 40).
var ErrTooLong = errors.New("qr: text too long for a QR code")

// Encode draws text as a QR code of the smallest version that holds it, in the most compact single mode (numeric,
// alphanumeric or bytes; the links encoded here are bytes), at level M.
func Encode(text string) (*Code, error) {
	var enc coding.Encoding
	switch {
	case coding.Num(text).Check() == nil:
		enc = coding.Num(text)
	case coding.Alpha(text).Check() == nil:
		enc = coding.Alpha(text)
	default:
		enc = coding.String(text)
	}
	v := coding.Version(coding.MinVersion)
	for ; enc.Bits(v) > v.DataBytes(level)*8; v++ {
		if v == coding.MaxVersion {
			return nil, ErrTooLong
		}
	}
	var b coding.Bits
	enc.Encode(&b, v)
	b.AddCheckBytes(v, level)
	codewords := b.Bytes()

	plans, err := plansFor(v)
	if err != nil {
		return nil, err
	}
	size := len(plans[0].Pixel)
	best, rows, cols := make([]line, size), make([]line, size), make([]line, size)
	bestScore := -1
	for _, p := range plans {
		draw(p, codewords, rows, cols)
		if s := penalty(rows, cols, size); bestScore < 0 || s < bestScore {
			best, rows, bestScore = rows, best, s
		}
	}
	return &Code{Size: size, rows: best}, nil
}

// draw lays codewords out on plan p's grid, as its rows and its columns.
func draw(p *coding.Plan, codewords []byte, rows, cols []line) {
	clear(rows)
	clear(cols)
	for y, row := range p.Pixel {
		for x, pix := range row {
			if r := pix.Role(); r == coding.Data || r == coding.Check {
				o := pix.Offset()
				if codewords[o/8]&(1<<(7-o&7)) != 0 {
					pix ^= coding.Black
				}
			}
			if pix&coding.Black != 0 {
				rows[y].set(x)
				cols[x].set(y)
			}
		}
	}
}

// plans holds, per version, the layouts of the eight masks: a layout is the same for every code of its version
// and mask, and building one costs more than drawing a code.
var plans sync.Map // coding.Version → *[8]*coding.Plan

func plansFor(v coding.Version) (*[8]*coding.Plan, error) {
	if ps, ok := plans.Load(v); ok {
		return ps.(*[8]*coding.Plan), nil
	}
	var ps [8]*coding.Plan
	for m := range ps {
		p, err := coding.NewPlan(v, level, coding.Mask(m))
		if err != nil {
			return nil, err
		}
		ps[m] = p
	}
	got, _ := plans.LoadOrStore(v, &ps)
	return got.(*[8]*coding.Plan), nil
}
