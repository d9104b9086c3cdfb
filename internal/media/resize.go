package media

import (
	"image"
	stddraw "image/draw"

	"golang.org/x/image/draw"
)

// fit returns src scaled to fit within box x box, keeping the aspect ratio; src itself when it already fits
// (never upscaled). Re-encoding either result drops every metadata chunk of the upload.
//
// A large image is first shrunk by an integer factor with a box filter (each output pixel the average of a block),
// leaving Catmull-Rom a reduction of 2 to 4, as Pillow's thumbnail does with its reducing gap of 2. Catmull-Rom
// straight from the original needs a float64 buffer of box x source height x 32 bytes (98 MB for a 6000x6000 upload:
// two thirds of its decoded RGBA pixels, twice a JPEG's) and 3 to 4 times the CPU (BenchmarkFit); the box filter
// reads a few source rows at a time.
func fit(src image.Image, box int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= box && h <= box {
		return src
	}
	nw, nh := fitSize(w, h, box)
	mid := shrink(src, reduceFactor(w, h, box))
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	draw.CatmullRom.Scale(dst, dst.Bounds(), mid, mid.Bounds(), draw.Src, nil)
	return dst
}

// reduceFactor is the box-filter factor for a w x h image going into box: the largest that leaves the longer side
// at least 2*box, so that Catmull-Rom still does the last reduction of 2 to 4 (1 when the image is under 4*box).
func reduceFactor(w, h, box int) int {
	return max(1, max(w, h)/(2*box))
}

// fitSize returns the size of a w x h image scaled down to fit within box x box, each side at least 1.
func fitSize(w, h, box int) (int, int) {
	if w >= h {
		return box, max(1, (h*box+w/2)/w)
	}
	return max(1, (w*box+h/2)/h), box
}

// shrink returns src reduced k times in each direction as premultiplied RGBA, each pixel the average of a k x k block
// (a partial block at the right and bottom edges averages what it has). With k = 1 it is a conversion to RGBA.
// The source is read k rows at a time through a strip buffer, so the working memory is a few rows, not an image.
func shrink(src image.Image, k int) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if k == 1 {
		if m, ok := src.(*image.RGBA); ok {
			return m
		}
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		toRGBA(dst, src, b.Min)
		return dst
	}
	ow, oh := (w+k-1)/k, (h+k-1)/k
	dst := image.NewRGBA(image.Rect(0, 0, ow, oh))
	strip := image.NewRGBA(image.Rect(0, 0, w, k))
	sums := make([]uint32, 4*ow)
	for oy := range oh {
		rows := min(k, h-oy*k)
		strip.Rect.Max.Y = rows
		toRGBA(strip, src, image.Pt(b.Min.X, b.Min.Y+oy*k))
		clear(sums)
		for y := range rows {
			row := strip.Pix[y*strip.Stride : y*strip.Stride+4*w]
			for ox := range ow {
				var r, g, b, a uint32
				blk := row[4*ox*k : 4*min(w, ox*k+k)]
				for i := 0; i+3 < len(blk); i += 4 {
					r += uint32(blk[i])
					g += uint32(blk[i+1])
					b += uint32(blk[i+2])
					a += uint32(blk[i+3])
				}
				s := sums[4*ox : 4*ox+4 : 4*ox+4]
				s[0] += r
				s[1] += g
				s[2] += b
				s[3] += a
			}
		}
		out := dst.Pix[oy*dst.Stride : oy*dst.Stride+4*ow]
		for ox := range ow {
			n := uint32(rows * min(k, w-ox*k))
			for c := range 4 {
				out[4*ox+c] = uint8((sums[4*ox+c] + n/2) / n)
			}
		}
	}
	return dst
}

// toRGBA fills dst (whose bounds start at 0,0) with the pixels of src from sp on. image/draw has fast paths for the
// RGBA, NRGBA, YCbCr, Gray and CMYK images that the decoders return; a paletted image, the usual output of PNG
// optimizers, goes through its palette as a table instead of a colour interface call per pixel.
func toRGBA(dst *image.RGBA, src image.Image, sp image.Point) {
	p, ok := src.(*image.Paletted)
	if !ok {
		stddraw.Draw(dst, dst.Bounds(), src, sp, stddraw.Src)
		return
	}
	var table [256][4]uint8
	for i, c := range p.Palette {
		r, g, b, a := c.RGBA()
		table[i] = [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	w := dst.Rect.Dx()
	for y := range dst.Rect.Dy() {
		i := p.PixOffset(sp.X, sp.Y+y)
		srow := p.Pix[i : i+w]
		drow := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x, idx := range srow {
			copy(drow[4*x:4*x+4], table[idx][:])
		}
	}
}

// resizeCost is an upper bound on the bytes that both fits of a w x h image allocate (shrink's strip, sums and
// output, Catmull-Rom's float64 buffer of destination width x source height, the variant) plus the encoders'
// buffers. It is the resizing half of the decode budget's charge, so it follows fit's steps one by one.
func resizeCost(w, h int) int64 {
	const encoders = 3 << 20 // a PNG encoder's deflate state and row buffers, a JPEG encoder's tables
	var total int64 = encoders
	for _, box := range []int{MediumBox, SmallBox} {
		if w <= box && h <= box {
			continue // fit returns the image itself
		}
		k := reduceFactor(w, h, box)
		ow, oh := int64((w+k-1)/k), int64((h+k-1)/k)
		if k > 1 {
			total += 4*int64(w)*int64(k) + 16*ow // strip and sums
		}
		nw, nh := fitSize(w, h, box)
		total += 4*ow*oh + 32*int64(nw)*oh + 4*int64(nw)*int64(nh) // shrunk image, Catmull-Rom buffer, variant
		w, h = nw, nh                                              // the small variant is scaled from the medium one
	}
	return total
}
