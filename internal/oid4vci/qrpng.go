package oid4vci

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// qrPNG writes a QR code's modules (true: dark) as a size×size PNG of one bit per pixel, white and black, each pixel
// taking the module go-qrcode's Image maps it to (so the image is pixel for pixel go-qrcode's). go-qrcode's PNG
// method goes through image/png, which reads a two-colour image one pixel at a time through an interface and
// compresses at BestCompression with a new ~1 MB compressor: profiled at about half of a code's CPU. Here the rows
// are packed directly and compressed at BestSpeed by a pooled writer (a two-colour image of long runs compresses
// almost as well: ~1.1 KB instead of ~1.0).
func qrPNG(modules [][]bool, size int) ([]byte, error) {
	n := len(modules)
	size = max(size, n)
	stride := (size + 7) / 8
	raw := make([]byte, size*(1+stride)) // each row: filter type 0 (none), then the packed pixels
	perPixel := float64(n) / float64(size)
	col := make([]int, size) // the module column of each pixel column, as go-qrcode computes it
	for x := range col {
		col[x] = int(float64(x) * perPixel)
	}
	for y := range size {
		row, line := modules[int(float64(y)*perPixel)], raw[y*(1+stride)+1:][:stride]
		for x, c := range col {
			if row[c] {
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
