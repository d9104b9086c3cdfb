package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"
)

// testImage returns a w x h image with a gradient and a translucent band, so scaling has real content to work on.
func testImage(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := uint8(255)
			if y%7 == 0 {
				a = 128
			}
			m.SetNRGBA(x, y, color.NRGBA{R: uint8(x * 255 / max(1, w-1)), G: uint8(y * 255 / max(1, h-1)), B: uint8((x ^ y) & 0xff), A: a})
		}
	}
	return m
}

func mustPNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, png.Encode(&buf, testImage(w, h)))
	return buf.Bytes()
}

func mustJPEG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, jpeg.Encode(&buf, testImage(w, h), &jpeg.Options{Quality: 90}))
	return buf.Bytes()
}

func mustGIF(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, gif.Encode(&buf, testImage(w, h), nil))
	return buf.Bytes()
}

// pngChunk encodes one PNG chunk with its CRC.
func pngChunk(typ string, payload []byte) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint32(len(payload)))
	b.WriteString(typ)
	b.Write(payload)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(payload)
	_ = binary.Write(&b, binary.BigEndian, crc.Sum32())
	return b.Bytes()
}

// hugePNGHeader is a valid PNG signature and IHDR claiming a w x h RGBA canvas, with a tiny IDAT and IEND: a few
// dozen bytes whose decoding would allocate w*h*4 bytes.
func hugePNGHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	out := append([]byte{}, pngMagic...)
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

// hugeJPEGHeader is SOI, a baseline SOF0 claiming a w x h three-component frame and the start of a scan header
// (where the header ends), nothing else.
func hugeJPEGHeader(w, h uint16) []byte {
	return []byte{0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xda, 0x00, 0x0c}
}

// withPNGText inserts a tEXt metadata chunk right after IHDR.
func withPNGText(tb testing.TB, data []byte, key, value string) []byte {
	tb.Helper()
	const ihdrEnd = 8 + 4 + 4 + 13 + 4
	require.Greater(tb, len(data), ihdrEnd)
	out := append([]byte{}, data[:ihdrEnd]...)
	out = append(out, pngChunk("tEXt", []byte(key+"\x00"+value))...)
	return append(out, data[ihdrEnd:]...)
}

// withJPEGExif inserts an APP1 Exif segment right after SOI.
func withJPEGExif(data []byte, payload string) []byte {
	seg := append([]byte("Exif\x00\x00"), payload...)
	out := append([]byte{}, data[:2]...)
	out = append(out, 0xff, 0xe1, byte((len(seg)+2)>>8), byte(len(seg)+2))
	out = append(out, seg...)
	return append(out, data[2:]...)
}

func mustDecodeSize(tb testing.TB, ext string, data []byte) (int, int) {
	tb.Helper()
	var (
		m   image.Image
		err error
	)
	switch ext {
	case "png":
		m, err = png.Decode(bytes.NewReader(data))
	case "jpg":
		m, err = jpeg.Decode(bytes.NewReader(data))
	default:
		tb.Fatalf("no decoder for %q", ext)
	}
	require.NoError(tb, err)
	return m.Bounds().Dx(), m.Bounds().Dy()
}

func mustPalettedPNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	src := testImage(w, h)
	p := image.NewPaletted(src.Bounds(), palette.Plan9)
	draw.Draw(p, p.Bounds(), src, image.Point{}, draw.Src)
	var buf bytes.Buffer
	require.NoError(tb, png.Encode(&buf, p))
	return buf.Bytes()
}

// process runs data through a fresh Processor of lim, with no deadline.
func process(data []byte, lim Limits) (Result, error) {
	return NewProcessor(lim).Process(context.Background(), data)
}
