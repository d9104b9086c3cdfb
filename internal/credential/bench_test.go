package credential

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// canonicalizeValueJSONGold is canonicalizeValue without the fast path: the reference the fast path is
// measured against (production always tries the fast path first).
func canonicalizeValueJSONGold(ctx context.Context, v any, lim Limits) (string, error) {
	ctx, cancel := lim.withTimeout(ctx)
	defer cancel()
	return canonicalizeJSONGold(ctx, v, lim)
}

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

// BenchmarkSign is signing alone (two canonicalizations, two hashes, one Ed25519 signature) of the same OB 3.0
// credential, with json-gold and then with the fast path, in one run. Both sign to the same bytes (checked
// first). The fast sub-benchmark reports its speed-up over the json-gold one that ran just before it, in wall
// time and in CPU time.
//
//	go test -run '^$' -bench 'BenchmarkSign$|BenchmarkCanonicalize$' -benchmem ./internal/credential/
func BenchmarkSign(b *testing.B) {
	_, priv := testKey(b)
	cred := mustBuild(b, testInput())
	ctx := context.Background()
	opts := SignOptions{VerificationMethod: testIssuer + "#k", Created: time.Date(2025, 3, 1, 9, 30, 5, 0, time.UTC)}
	gold, err := sign(ctx, cred, priv, opts, canonicalizeValueJSONGold)
	require.NoError(b, err)
	fast, err := sign(ctx, cred, priv, opts, canonicalizeValue)
	require.NoError(b, err)
	require.Equal(b, string(gold), string(fast))
	sideBySide(b, func(canon canonicalizer) error {
		_, err := sign(ctx, cred, priv, opts, canon)
		return err
	})
}

// BenchmarkCanonicalize is one RDFC-1.0 canonicalization of the credential document, both ways.
func BenchmarkCanonicalize(b *testing.B) {
	cred := roundTrip(b, mustBuild(b, testInput()))
	ctx := context.Background()
	gold, err := canonicalizeValueJSONGold(ctx, cred, DefaultLimits)
	require.NoError(b, err)
	fast, err := canonicalizeValue(ctx, cred, DefaultLimits)
	require.NoError(b, err)
	require.Equal(b, gold, fast)
	sideBySide(b, func(canon canonicalizer) error {
		_, err := canon(ctx, cred, DefaultLimits)
		return err
	})
}

// sideBySide runs op with json-gold, then with the fast path, reporting credentials/s and the ratio. On a
// shared machine wall time overstates the cost, so it also reports the process CPU time per operation
// (garbage collection included) and the credentials per second of CPU that makes: credentials/s/core.
func sideBySide(b *testing.B, op func(canonicalizer) error) {
	var goldNs, goldCPU float64 // of the latest json-gold run (-count repeats each sub-benchmark in turn)
	run := func(name string, canon canonicalizer) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU(b)
			for b.Loop() {
				if err := op(canon); err != nil {
					b.Fatal(err)
				}
			}
			cpuNs := float64(processCPU(b)-cpu0) / float64(b.N)
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(1e9/ns, "credentials/s")
			b.ReportMetric(cpuNs, "cpu-ns/op")
			b.ReportMetric(1e9/cpuNs, "credentials/s/core")
			if name == "json-gold" {
				goldNs, goldCPU = ns, cpuNs
			} else {
				b.ReportMetric(goldNs/ns, "x_json-gold")
				b.ReportMetric(goldCPU/cpuNs, "x_json-gold_cpu")
			}
		})
	}
	run("json-gold", canonicalizeValueJSONGold)
	run("fast", canonicalizeValue)
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

// processCPU is the user and system CPU time of the process so far, in nanoseconds.
func processCPU(tb testing.TB) int64 {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return ru.Utime.Nano() + ru.Stime.Nano()
}
