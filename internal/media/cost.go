package media

import (
	"encoding/binary"
	"image"
	"image/color"
)

// decoderOverhead covers what a decoder allocates whatever the image size: zlib state and window, Huffman and
// quantization tables, readers.
const decoderOverhead = 256 << 10

// pngDecodeCost is an upper bound on the bytes image/png allocates to decode data, whose header gave cfg: the image
// at its decoded depth (1 byte a pixel for paletted and 8-bit grey, 4 for 8-bit colour or grey with alpha, 8 for
// 16-bit colour), for an interlaced PNG the seven pass images merged into it (as many bytes again), and two rows of
// filter state.
func pngDecodeCost(data []byte, cfg image.Config) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	bpp := bytesPerPixel(cfg.ColorModel)
	// DecodeConfig reports grey for a grey PNG with a tRNS chunk, which Decode returns with an alpha channel.
	if (cfg.ColorModel == color.GrayModel || cfg.ColorModel == color.Gray16Model) && pngHasTRNS(data) {
		bpp *= 4
	}
	cost := px*bpp + 2*(int64(cfg.Width)*bpp+1) + decoderOverhead
	// DecodeConfig has read the whole IHDR, which image/png requires first: its last byte is the interlace method.
	const ihdrInterlace = 8 + 8 + 12
	if len(data) > ihdrInterlace && data[ihdrInterlace] != 0 {
		cost += px * bpp
	}
	return cost
}

// pngHasTRNS reports whether a tRNS chunk comes before the image data. The chunk layout is length, type, data, CRC.
func pngHasTRNS(data []byte) bool {
	for i := len(pngMagic); i+8 <= len(data); {
		n := int64(binary.BigEndian.Uint32(data[i:]))
		switch string(data[i+4 : i+8]) {
		case "tRNS":
			return true
		case "IDAT":
			return false
		}
		if n > int64(len(data)) {
			return false
		}
		i += 12 + int(n)
	}
	return false
}

// bytesPerPixel is the size of a pixel of the image that image/png or image/jpeg returns for model; 8 (the largest)
// for a model it does not know.
func bytesPerPixel(model color.Model) int64 {
	if _, ok := model.(color.Palette); ok {
		return 1
	}
	switch model {
	case color.GrayModel:
		return 1
	case color.Gray16Model:
		return 2
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	return 8
}

// jpegDecodeCost is an upper bound on the bytes image/jpeg allocates to decode data, whose header gave cfg. The
// decoder writes each component into a plane padded to whole MCUs (1 byte a sample, chroma planes subsampled as
// the frame says); a progressive JPEG also keeps every coefficient of every block between scans (64 int32, 4 bytes
// a sample: the dominant cost); an RGB or 4-component JPEG is then converted into a 4-byte-a-pixel image.
func jpegDecodeCost(data []byte, cfg image.Config) int64 {
	f, ok := readJPEGFrame(data)
	if !ok {
		// Not found where image/jpeg found it: charge the worst frame with as many components.
		n := 3
		switch cfg.ColorModel {
		case color.GrayModel:
			n = 1
		case color.CMYKModel:
			n = 4
		}
		f = jpegFrame{progressive: true, samples: make([][2]int, n)}
		for i := range f.samples {
			f.samples[i] = [2]int{1, 1}
		}
	}
	hmax, vmax := 1, 1
	for _, s := range f.samples {
		hmax, vmax = max(hmax, s[0]), max(vmax, s[1])
	}
	mcus := int64((cfg.Width+8*hmax-1)/(8*hmax)) * int64((cfg.Height+8*vmax-1)/(8*vmax))
	var planes int64
	for _, s := range f.samples {
		planes += 64 * int64(s[0]*s[1]) * mcus
	}
	cost := planes + decoderOverhead
	if f.progressive {
		cost += 4 * planes
	}
	if len(f.samples) == 4 || cfg.ColorModel == color.RGBAModel {
		cost += 4 * int64(cfg.Width) * int64(cfg.Height)
	}
	return cost
}

// jpegFrame is what a JPEG decode's memory depends on, from its start-of-frame segment.
type jpegFrame struct {
	progressive bool
	samples     [][2]int // horizontal and vertical sampling factors of each component
}

// readJPEGFrame finds the SOF0/1/2 segment (the frames image/jpeg decodes) the way image/jpeg walks the segments:
// bytes before a marker and 0xff fill bytes are skipped. ok is false when there is none before the first scan.
func readJPEGFrame(data []byte) (f jpegFrame, ok bool) {
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff || data[i+1] == 0xff || data[i+1] == 0 {
			i++
			continue
		}
		marker := data[i+1]
		if marker == 0x01 || marker == 0xd8 || (marker >= 0xd0 && marker <= 0xd7) { // segments without a length
			i += 2
			continue
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if n < 2 { // the length counts its own two bytes; image/jpeg refused this header already
			return jpegFrame{}, false
		}
		seg := data[i+4 : min(len(data), i+2+n)]
		switch marker {
		case 0xc0, 0xc1, 0xc2:
			// precision, height, width, component count, then id, sampling factors, table for each component
			if len(seg) < 6 || len(seg) < 6+3*int(seg[5]) || seg[5] == 0 {
				return jpegFrame{}, false
			}
			f.progressive = marker == 0xc2
			for c := range int(seg[5]) {
				hv := seg[6+3*c+1]
				f.samples = append(f.samples, [2]int{max(1, int(hv>>4)), max(1, int(hv&0x0f))})
			}
			if len(f.samples) == 1 {
				f.samples[0] = [2]int{1, 1} // image/jpeg decodes a single component without subsampling
			}
			return f, true
		case 0xda, 0xd9: // start of scan, end of image
			return jpegFrame{}, false
		}
		i += 2 + n
	}
	return jpegFrame{}, false
}
