package credential

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"testing"
	"time"
)

// BenchmarkSignVerifyOB3 is the full cost per OB 3.0 credential: build, sign, verify.
func BenchmarkSignVerifyOB3(b *testing.B) {
	pub, priv := testKey(b)
	r := ownResolver(b, pub)
	vm := VerificationMethodID(testIssuer, pub)
	ctx := context.Background()
	for b.Loop() {
		cred, err := Build(testInput())
		if err != nil {
			b.Fatal(err)
		}
		signed, err := Sign(ctx, cred, priv, SignOptions{VerificationMethod: vm, Created: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Verify(ctx, signed, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignOB3 is signing alone (two canonicalizations, two hashes, one Ed25519 signature).
func BenchmarkSignOB3(b *testing.B) {
	_, priv := testKey(b)
	cred := mustBuild(b, testInput())
	ctx := context.Background()
	for b.Loop() {
		if _, err := Sign(ctx, cred, priv, SignOptions{VerificationMethod: testIssuer + "#k", Created: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonicalizeOB3 is one RDFC-1.0 canonicalization of the credential document.
func BenchmarkCanonicalizeOB3(b *testing.B) {
	cred := mustBuild(b, testInput())
	ctx := context.Background()
	for b.Loop() {
		if _, err := Canonicalize(ctx, cred, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEd25519Sign is the raw signature over the 64-byte hash data, for comparison.
func BenchmarkEd25519Sign(b *testing.B) {
	_, priv := testKey(b)
	h := sha256.Sum256([]byte("x"))
	data := append(h[:], h[:]...)
	for b.Loop() {
		ed25519.Sign(priv, data)
	}
}
