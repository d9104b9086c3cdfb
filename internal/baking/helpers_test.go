package baking

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/badged/badged/internal/errcode"
	"github.com/stretchr/testify/require"
)

// testCredential is a small OB 3.0 credential with non-ASCII text, as the issuer signs it.
var testCredential = []byte(`{"@context":["https://www.w3.org/ns/credentials/v2","https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"],` +
	`"id":"urn:uuid:6b3e1f0e-6a55-4f1d-9f39-6c2a8e0f4a11","type":["VerifiableCredential","OpenBadgeCredential"],` +
	`"issuer":{"id":"did:web:badged.example","type":["Profile"],"name":"한국대학교"},` +
	`"credentialSubject":{"type":["AchievementSubject"],"name":"홍길동","achievement":{"name":"Go 기초 ]]> 과정"}}}`)

// mustPNG encodes a w×h gradient as PNG with the standard library encoder.
func mustPNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, png.Encode(&buf, gradient(w, h)))
	return buf.Bytes()
}

// mustJPEG encodes a w×h gradient as JPEG.
func mustJPEG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, jpeg.Encode(&buf, gradient(w, h), &jpeg.Options{Quality: 80}))
	return buf.Bytes()
}

func gradient(w, h int) image.Image {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.NRGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: 128, A: 255})
		}
	}
	return m
}

// rawChunk is one chunk as read by readChunks.
type rawChunk struct {
	Type string
	Data []byte
}

// readChunks is a minimal PNG chunk reader written independently of parsePNG, used to check what Bake wrote:
// it recomputes every CRC itself.
func readChunks(tb testing.TB, b []byte) []rawChunk {
	tb.Helper()
	require.Equal(tb, "\x89PNG\r\n\x1a\n", string(b[:8]), "signature")
	var out []rawChunk
	for off := 8; off < len(b); {
		require.LessOrEqual(tb, off+12, len(b), "chunk header at %d", off)
		n := int(binary.BigEndian.Uint32(b[off:]))
		require.LessOrEqual(tb, off+12+n, len(b), "chunk body at %d", off)
		body := b[off+4 : off+8+n]
		require.Equal(tb, crc32.ChecksumIEEE(body), binary.BigEndian.Uint32(b[off+8+n:]), "CRC of %q", body[:4])
		out = append(out, rawChunk{Type: string(body[:4]), Data: body[4:]})
		off += 12 + n
	}
	return out
}

// requireBakingError checks that err carries BADGE_IMAGE_BAKING_FAILED.
func requireBakingError(tb testing.TB, err error) {
	tb.Helper()
	require.Error(tb, err)
	require.Equal(tb, errcode.BadgeImageBakingFailed, errcode.Of(err), "error: %v", err)
}

// withChunk returns png with one extra chunk inserted right before IEND.
func withChunk(tb testing.TB, p []byte, typ string, data []byte) []byte {
	tb.Helper()
	iend := len(p) - 12
	require.Equal(tb, "IEND", string(p[iend+4:iend+8]))
	out := append([]byte{}, p[:iend]...)
	out = appendChunk(out, typ, data)
	return append(out, p[iend:]...)
}
