package oid4vci

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"sync"

	"github.com/badged/badged/internal/qr"
)

// quietZone is the light border a QR code needs around it, in modules (ISO/IEC 18004: four).
const quietZone = 4

// qrPNG writes a QR code with its quiet zone as a size×size PNG of one bit per pixel, white and black, each pixel
// taking the module under it (rounded down, so modules are a pixel wider here and there). image/png would read a
// two-colour image one pixel at a time through an interface and compress at BestCompression with a new ~1 MB
// compressor: profiled at about half of a code's CPU. Here the rows are packed directly and compressed at
// BestSpeed by a pooled writer (a two-colour image of long runs compresses almost as well: ~1.1 KB).
func qrPNG(q *qr.Code, size int) ([]byte, error) {
	n := q.Size + 2*quietZone
	dark := func(x, y int) bool {
		x, y = x-quietZone, y-quietZone
		return x >= 0 && y >= 0 && x < q.Size && y < q.Size && q.Dark(x, y)
	}
	size = max(size, n)
	stride := (size + 7) / 8
	raw := make([]byte, size*(1+stride)) // each row: filter type 0 (none), then the packed pixels
	perPixel := float64(n) / float64(size)
	col := make([]int, size) // the module column of each pixel column
	for x := range col {
		col[x] = int(float64(x) * perPixel)
	}
	prev := -1 // the module row the previous pixel row was drawn from: its pixels are the same
	for y := range size {
		my, line := int(float64(y)*perPixel), raw[y*(1+stride)+1:][:stride]
		if my == prev {
			copy(line, raw[(y-1)*(1+stride)+1:][:stride])
			continue
		}
		prev = my
		for x, c := range col {
			if dark(c, my) {
				line[x/8] |= 0x80 >> (x % 8)
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(size))
	binary.BigEndian.PutUint32(hdr[4:], uint32(size))
	hdr[8], hdr[9] = 1, 3 // bit depth 1, indexed colour; compression, filter and interlace methods 0
	writeChunk(&b, "IHDR", hdr[:])
	writeChunk(&b, "PLTE", []byte{0xff, 0xff, 0xff, 0, 0, 0}) // 0 white (light module), 1 black (dark)
	var z bytes.Buffer
	w := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(w)
	w.Reset(&z)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	writeChunk(&b, "IDAT", z.Bytes())
	writeChunk(&b, "IEND", nil)
	return b.Bytes(), nil
}

// zlibWriters keeps compressors for reuse: each holds about a megabyte of tables.
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed) // a valid level: no error
	return w
}}

// writeChunk appends a PNG chunk: length, type, data and the CRC of type and data.
func writeChunk(b *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	b.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	b.WriteString(typ)
	b.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	b.Write(n[:])
}
