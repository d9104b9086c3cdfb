package baking

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBakePNG_RoundTrip(t *testing.T) {
	src := mustPNG(t, 64, 48)
	out, ct, err := Bake(src, testCredential)
	require.NoError(t, err)
	require.Equal(t, ContentTypePNG, ct)

	got, err := Unbake(out)
	require.NoError(t, err)
	require.Equal(t, testCredential, got)

	// The standard decoder checks every CRC and the image data: the baked file is still the same picture.
	m, err := png.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	orig, err := png.Decode(bytes.NewReader(src))
	require.NoError(t, err)
	require.Equal(t, orig, m)
}

func TestBakePNG_ChunkLayout(t *testing.T) {
	out, _, err := Bake(mustPNG(t, 16, 16), testCredential)
	require.NoError(t, err)

	chunks := readChunks(t, out)
	require.Equal(t, "IHDR", chunks[0].Type)
	require.Equal(t, "IEND", chunks[len(chunks)-1].Type)
	itxt := chunks[len(chunks)-2]
	require.Equal(t, "iTXt", itxt.Type, "credential chunk sits just before IEND")
	// keyword NUL, compression flag 0, method 0, empty language tag NUL, empty translated keyword NUL, text.
	want := append([]byte("openbadgecredential\x00\x00\x00\x00\x00"), testCredential...)
	require.Equal(t, want, itxt.Data)
}

func TestBakePNG_ReplacesExistingCredential(t *testing.T) {
	src := mustPNG(t, 16, 16)
	// An image that already carries an OB 3.0 chunk, an OB 2.0 iTXt and an OB 1.0 tEXt, plus an unrelated tEXt.
	src = withChunk(t, src, "iTXt", itxtData(keywordOB3, []byte(`{"old":3}`)))
	src = withChunk(t, src, "iTXt", itxtData(keywordOB2, []byte(`{"old":2}`)))
	src = withChunk(t, src, "tEXt", []byte("openbadges\x00https://old.example/assertion"))
	src = withChunk(t, src, "tEXt", []byte("Comment\x00kept"))

	once, _, err := Bake(src, []byte(`{"first":true}`))
	require.NoError(t, err)
	twice, _, err := Bake(once, testCredential)
	require.NoError(t, err)

	var badge, comments int
	for _, c := range readChunks(t, twice) {
		kw, _, _ := bytes.Cut(c.Data, []byte{0})
		switch {
		case string(kw) == keywordOB3 || string(kw) == keywordOB2:
			badge++
		case c.Type == "tEXt" && string(kw) == "Comment":
			comments++
		}
	}
	require.Equal(t, 1, badge, "exactly one badge chunk")
	require.Equal(t, 1, comments, "unrelated text chunks are kept")
	got, err := Unbake(twice)
	require.NoError(t, err)
	require.Equal(t, testCredential, got)
	_, err = png.Decode(bytes.NewReader(twice))
	require.NoError(t, err)
}

func TestUnbakePNG_Legacy(t *testing.T) {
	base := mustPNG(t, 8, 8)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(testCredential)
	require.NoError(t, zw.Close())
	compressed := append([]byte("openbadgecredential\x00\x01\x00en\x00\x00"), z.Bytes()...)

	tests := []struct {
		name  string
		img   []byte
		want  string
		noCrd bool
	}{
		{name: "OB2 tEXt", img: withChunk(t, base, "tEXt", []byte("openbadges\x00https://x.example/a/1")), want: "https://x.example/a/1"},
		{name: "OB2 iTXt", img: withChunk(t, base, "iTXt", itxtData(keywordOB2, []byte(`{"v":2}`))), want: `{"v":2}`},
		{name: "compressed iTXt", img: withChunk(t, base, "iTXt", compressed), want: string(testCredential)},
		{name: "OB3 preferred over OB2", img: withChunk(t, withChunk(t, base, "tEXt", []byte("openbadges\x00old")),
			"iTXt", itxtData(keywordOB3, []byte("new"))), want: "new"},
		{name: "no credential", img: base, noCrd: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unbake(tt.img)
			if tt.noCrd {
				requireBakingError(t, err)
				require.ErrorIs(t, err, ErrNoCredential)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
		})
	}
}

func TestUnbakePNG_ZipBombRefused(t *testing.T) {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = zw.Write(make([]byte, 4*MaxCredentialBytes))
	require.NoError(t, zw.Close())
	img := withChunk(t, mustPNG(t, 8, 8), "iTXt", append([]byte("openbadgecredential\x00\x01\x00\x00\x00"), z.Bytes()...))
	_, err := Unbake(img)
	requireBakingError(t, err)
}

func TestBakePNG_CorruptInputs(t *testing.T) {
	good := mustPNG(t, 16, 16)
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	badCRC := mutate(func(b []byte) []byte { b[8+8+4] ^= 0xFF; return b }) // a byte of IHDR data
	hugeLen := mutate(func(b []byte) []byte { binary.BigEndian.PutUint32(b[8+33:], 0xFFFFFFF0); return b })
	noIHDR := append(append([]byte{}, pngSignature...), good[8+25:]...)
	badType := mutate(func(b []byte) []byte { b[8+33+4] = '1'; return b })
	trailing := append(append([]byte{}, good...), "junk"...)

	tests := []struct {
		name string
		img  []byte
	}{
		{"empty", nil},
		{"signature only", pngSignature},
		{"truncated in IHDR", good[:20]},
		{"truncated before IEND", good[:len(good)-12]},
		{"truncated in IEND", good[:len(good)-3]},
		{"bad CRC", badCRC},
		{"chunk length beyond limit", hugeLen},
		{"IHDR missing", noIHDR},
		{"invalid chunk type", badType},
		{"data after IEND", trailing},
		{"not an image", []byte("hello")},
		{"GIF", []byte("GIF89a\x01\x00\x01\x00")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Bake(tt.img, testCredential)
			requireBakingError(t, err)
			_, err = Unbake(tt.img)
			requireBakingError(t, err)
		})
	}
}

func TestBake_BadCredential(t *testing.T) {
	img := mustPNG(t, 8, 8)
	for name, cred := range map[string][]byte{
		"empty":          nil,
		"blank":          []byte("  \n"),
		"invalid UTF-8":  []byte("{\"a\":\"\xff\"}"),
		"control char":   []byte("{\"a\":\"\x01\"}"),
		"over the limit": bytes.Repeat([]byte("a"), MaxCredentialBytes+1),
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Bake(img, cred)
			requireBakingError(t, err)
		})
	}
}

func TestBakeJPEG_ConvertsToPNG(t *testing.T) {
	out, ct, err := Bake(mustJPEG(t, 40, 30), testCredential)
	require.NoError(t, err)
	require.Equal(t, ContentTypePNG, ct)
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, [2]int{40, 30}, [2]int{cfg.Width, cfg.Height})
	got, err := Unbake(out)
	require.NoError(t, err)
	require.Equal(t, testCredential, got)
}

func TestBakeJPEG_Refused(t *testing.T) {
	j := mustJPEG(t, 16, 16)
	// A JPEG header that claims 60000×60000 pixels (3.6 gigapixels) in a few hundred bytes: SOF0 height/width.
	bomb := append([]byte{}, j...)
	sof := bytes.Index(bomb, []byte{0xFF, 0xC0})
	require.Positive(t, sof)
	binary.BigEndian.PutUint16(bomb[sof+5:], 60000)
	binary.BigEndian.PutUint16(bomb[sof+7:], 60000)

	for name, img := range map[string][]byte{
		"pixel bomb": bomb,
		"truncated":  j[:len(j)/2],
		"header":     j[:3],
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Bake(img, testCredential)
			requireBakingError(t, err)
		})
	}
	_, err := Unbake(j)
	require.ErrorIs(t, err, ErrNoCredential)
}
