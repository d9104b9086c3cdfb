package baking

import (
	"bytes"
	"testing"

	"github.com/badged/badged/internal/errcode"
)

// pngSeeds are valid, baked, legacy and damaged PNGs for the fuzzers' seed corpus.
func pngSeeds(f *testing.F) [][]byte {
	plain := mustPNG(f, 4, 3)
	baked, _, err := Bake(plain, testCredential)
	if err != nil {
		f.Fatal(err)
	}
	return [][]byte{
		plain,
		baked,
		withChunk(f, plain, "tEXt", []byte("openbadges\x00https://x.example/a")),
		withChunk(f, plain, "iTXt", []byte("openbadgecredential\x00\x01\x00\x00\x00x\x9c\x03\x00\x00\x00\x00\x01")),
		baked[:len(baked)-5],
		pngSignature,
	}
}

func FuzzUnbakePNG(f *testing.F) {
	for _, s := range pngSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, img []byte) {
		cred, err := Unbake(img)
		if err != nil {
			if errcode.Of(err) != errcode.BadgeImageBakingFailed {
				t.Fatalf("error without BADGE_IMAGE_BAKING_FAILED: %v", err)
			}
			return
		}
		if len(cred) > MaxCredentialBytes {
			t.Fatalf("credential of %d bytes beyond the limit", len(cred))
		}
	})
}

func FuzzBakePNG(f *testing.F) {
	for _, s := range pngSeeds(f) {
		f.Add(s, testCredential)
		f.Add(s, []byte(`{"a":"]]>"}`))
	}
	f.Fuzz(func(t *testing.T, img, cred []byte) {
		out, ct, err := Bake(img, cred)
		if err != nil {
			if errcode.Of(err) != errcode.BadgeImageBakingFailed {
				t.Fatalf("error without BADGE_IMAGE_BAKING_FAILED: %v", err)
			}
			return
		}
		if sniff(img) != formatPNG || ct != ContentTypePNG {
			return // the fuzzer may find SVG/JPEG inputs too; the PNG properties are checked below
		}
		// A bake that succeeded must give a structurally valid PNG with exactly one credential chunk holding cred.
		chunks, err := parsePNG(out)
		if err != nil {
			t.Fatalf("baked PNG does not parse: %v", err)
		}
		n := 0
		for _, c := range chunks {
			if isBadgeChunk(c) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d badge chunks, want 1", n)
		}
		got, err := Unbake(out)
		if err != nil || !bytes.Equal(got, cred) {
			t.Fatalf("unbake = %q, %v; want %q", got, err, cred)
		}
	})
}
