package baking

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// pngSignature opens every PNG file (PNG specification, section 5.2).
var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}

// Keywords of the text chunks that carry a badge: Open Badges 3.0 uses "openbadgecredential", 1.0/2.0 "openbadges".
const (
	keywordOB3 = "openbadgecredential"
	keywordOB2 = "openbadges"
)

// chunk is one PNG chunk; data aliases the input image.
type chunk struct {
	typ  string
	data []byte
}

// parsePNG splits a PNG file into chunks and validates its structure: signature, chunk lengths within the file and
// within MaxChunkBytes, CRC of every chunk, chunk type bytes, IHDR first (13 bytes), IEND last and empty, nothing
// after IEND.
func parsePNG(img []byte) ([]chunk, error) {
	if !bytes.HasPrefix(img, pngSignature) {
		return nil, errors.New("png: bad signature")
	}
	var chunks []chunk
	rest := img[len(pngSignature):]
	for {
		if len(rest) == 0 {
			return nil, errors.New("png: missing IEND chunk")
		}
		if len(rest) < 12 {
			return nil, fmt.Errorf("png: truncated chunk header after %d chunks", len(chunks))
		}
		n := binary.BigEndian.Uint32(rest[:4])
		if n > MaxChunkBytes {
			return nil, fmt.Errorf("png: chunk of %d bytes exceeds limit %d", n, MaxChunkBytes)
		}
		if uint64(len(rest)) < 12+uint64(n) {
			return nil, fmt.Errorf("png: chunk %q truncated", rest[4:8])
		}
		typ := rest[4:8]
		if !validChunkType(typ) {
			return nil, fmt.Errorf("png: invalid chunk type %q", typ)
		}
		data := rest[8 : 8+n]
		want := binary.BigEndian.Uint32(rest[8+n : 12+n])
		if got := crc32.ChecksumIEEE(rest[4 : 8+n]); got != want {
			return nil, fmt.Errorf("png: chunk %q CRC mismatch", typ)
		}
		c := chunk{typ: string(typ), data: data}
		rest = rest[12+n:]
		switch {
		case len(chunks) == 0 && (c.typ != "IHDR" || len(c.data) != 13):
			return nil, errors.New("png: first chunk is not a 13-byte IHDR")
		case len(chunks) > 0 && c.typ == "IHDR":
			return nil, errors.New("png: second IHDR chunk")
		}
		chunks = append(chunks, c)
		if c.typ == "IEND" {
			if len(c.data) != 0 {
				return nil, errors.New("png: IEND chunk is not empty")
			}
			if len(rest) != 0 {
				return nil, fmt.Errorf("png: %d bytes after IEND", len(rest))
			}
			return chunks, nil
		}
	}
}

// validChunkType reports whether t is four ASCII letters (PNG specification, section 5.3).
func validChunkType(t []byte) bool {
	for _, b := range t {
		if (b < 'A' || b > 'Z') && (b < 'a' || b > 'z') {
			return false
		}
	}
	return len(t) == 4
}

// bakePNG returns img with every existing badge text chunk removed and one new openbadgecredential iTXt chunk
// inserted just before IEND.
func bakePNG(img, credential []byte) ([]byte, error) {
	chunks, err := parsePNG(img)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(img)+len(credential)+64)
	out = append(out, pngSignature...)
	for _, c := range chunks {
		if isBadgeChunk(c) {
			continue // replaced below: the spec allows one credential chunk per file
		}
		if c.typ == "IEND" {
			out = appendChunk(out, "iTXt", itxtData(keywordOB3, credential))
		}
		out = appendChunk(out, c.typ, c.data)
	}
	return out, nil
}

// isBadgeChunk reports whether c is a text chunk carrying a badge (any Open Badges version).
func isBadgeChunk(c chunk) bool {
	if c.typ != "iTXt" && c.typ != "tEXt" && c.typ != "zTXt" {
		return false
	}
	kw, _, ok := bytes.Cut(c.data, []byte{0})
	return ok && (string(kw) == keywordOB3 || string(kw) == keywordOB2)
}

// itxtData builds the data of an uncompressed iTXt chunk: keyword, NUL, compression flag 0, compression method 0,
// empty language tag, NUL, empty translated keyword, NUL, UTF-8 text (PNG specification, section 11.3.4.5).
func itxtData(keyword string, text []byte) []byte {
	d := make([]byte, 0, len(keyword)+5+len(text))
	d = append(d, keyword...)
	d = append(d, 0, 0, 0, 0, 0)
	return append(d, text...)
}

// appendChunk appends one chunk with its length and CRC to b.
func appendChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// unbakePNG returns the text of the first openbadgecredential iTXt chunk; failing that, of the first Open Badges
// 2.0 "openbadges" chunk (iTXt or tEXt).
func unbakePNG(img []byte) ([]byte, error) {
	chunks, err := parsePNG(img)
	if err != nil {
		return nil, err
	}
	var legacy []byte
	for _, c := range chunks {
		if !isBadgeChunk(c) {
			continue
		}
		kw, text, err := parseTextChunk(c)
		if err != nil {
			return nil, err
		}
		if kw == keywordOB3 && c.typ == "iTXt" {
			return text, nil
		}
		if legacy == nil && kw == keywordOB2 && c.typ != "zTXt" {
			legacy = text
		}
	}
	if legacy != nil {
		return legacy, nil
	}
	return nil, ErrNoCredential
}

// parseTextChunk returns the keyword and text of a tEXt or iTXt chunk, inflating a compressed iTXt text with a
// bound of MaxCredentialBytes.
func parseTextChunk(c chunk) (keyword string, text []byte, err error) {
	kw, rest, _ := bytes.Cut(c.data, []byte{0})
	if c.typ == "tEXt" {
		return string(kw), bytes.Clone(rest), nil
	}
	if len(rest) < 2 {
		return "", nil, errors.New("png: iTXt chunk truncated")
	}
	compressed, method := rest[0], rest[1]
	rest = rest[2:]
	var ok bool
	if _, rest, ok = bytes.Cut(rest, []byte{0}); !ok { // language tag
		return "", nil, errors.New("png: iTXt language tag not terminated")
	}
	if _, rest, ok = bytes.Cut(rest, []byte{0}); !ok { // translated keyword
		return "", nil, errors.New("png: iTXt translated keyword not terminated")
	}
	switch {
	case compressed == 0:
		text = bytes.Clone(rest)
	case compressed == 1 && method == 0:
		if text, err = inflate(rest); err != nil {
			return "", nil, fmt.Errorf("png: iTXt text: %w", err)
		}
	default:
		return "", nil, fmt.Errorf("png: iTXt compression flag %d method %d", compressed, method)
	}
	if len(text) > MaxCredentialBytes {
		return "", nil, fmt.Errorf("png: credential of %d bytes exceeds limit %d", len(text), MaxCredentialBytes)
	}
	return string(kw), text, nil
}

// inflate decompresses zlib data, refusing more than MaxCredentialBytes of output (a zip bomb stops there).
func inflate(z []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxCredentialBytes+1))
	if err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	if len(b) > MaxCredentialBytes {
		return nil, fmt.Errorf("inflated text exceeds %d bytes", MaxCredentialBytes)
	}
	return b, nil
}
