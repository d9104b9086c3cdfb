package serial

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func mustKey(t testing.TB) []byte {
	t.Helper()
	key := make([]byte, KeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	return key
}

// form is the keyed form: the organization's prefix and two groups of four Crockford base-32 digits.
var form = regexp.MustCompile(`^[0-9a-f]{8}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`)

// The permutation is a bijection: on a domain small enough to walk whole (two halves of 8 bits), every counter
// gets its own serial and Counter gives each back.
func TestNumber_IsABijection(t *testing.T) {
	org := uuid.New()
	s, err := newNumberer(org, mustKey(t), 8)
	require.NoError(t, err)
	seen := make(map[string]bool, 1<<16)
	for n := int64(1); n < 1<<16; n++ {
		serial := s.Number(n)
		require.False(t, seen[serial], "counter %d repeats %s", n, serial)
		seen[serial] = true
		got, ok := s.Counter(serial)
		require.True(t, ok, serial)
		require.Equal(t, n, got)
	}
	require.Panics(t, func() { s.Number(1 << 16) })
	require.Panics(t, func() { s.Number(0) })
}

// On the real domain: a run of counters, as an organization issues them, gives distinct serials of the keyed form
// that read back to their counters, and that do not follow the counter: about half of the steps go down, and the
// values spread over the whole space. The same counter of another organization (another key) is another serial.
func TestNumber_UniqueReadableNotEnumerable(t *testing.T) {
	org := uuid.New()
	s, err := New(org, mustKey(t))
	require.NoError(t, err)
	const n = 200_000
	seen := make(map[string]int64, n)
	var prev, top uint64
	down := 0
	for c := int64(1); c <= n; c++ {
		serial := s.Number(c)
		require.Regexp(t, form, serial)
		require.Equal(t, org.String()[:8], serial[:8])
		if other, dup := seen[serial]; dup {
			t.Fatalf("counters %d and %d share %s", other, c, serial)
		}
		seen[serial] = c
		got, ok := s.Counter(serial)
		require.True(t, ok)
		require.Equal(t, c, got)
		v := s.permute(uint64(c))
		if c > 1 && v < prev {
			down++
		}
		prev, top = v, max(top, v)
	}
	require.InDelta(t, 0.5, float64(down)/(n-1), 0.01, "successive serials go up or down at random")
	require.Greater(t, top, uint64(1)<<(Bits-1), "spread over the space, not packed after the counter")

	other, err := New(org, mustKey(t))
	require.NoError(t, err)
	same := 0
	for c := int64(1); c <= 1000; c++ {
		if other.Number(c) == s.Number(c) {
			same++
		}
	}
	require.Zero(t, same, "another key numbers otherwise")
}

// Counter refuses what is not one of this organization's keyed serials: the decimal form of serials made before,
// another organization's, and altered ones.
func TestCounter_RefusesOtherSerials(t *testing.T) {
	org := uuid.New()
	s, err := New(org, mustKey(t))
	require.NoError(t, err)
	serial := s.Number(42)
	for _, bad := range []string{
		org.String()[:8] + "-00000042",    // the decimal form, kept by serials made before
		uuid.NewString()[:8] + serial[8:], // another organization's prefix
		serial[:9] + "I" + serial[10:],    // a letter Crockford leaves out
		bytesLower(serial),                // lower case
		serial[:13] + serial[14:],         // without the second hyphen
		serial + "0",
	} {
		_, ok := s.Counter(bad)
		require.False(t, ok, bad)
	}
	_, err = New(org, []byte("short"))
	require.ErrorContains(t, err, "5 bytes, want 16")
}

func bytesLower(s string) string { return string(bytes.ToLower([]byte(s))) }

func BenchmarkNumber(b *testing.B) {
	s, err := New(uuid.New(), mustKey(b))
	require.NoError(b, err)
	for i := range b.N {
		_ = s.Number(int64(i%1_000_000) + 1)
	}
}

// The numbering is fixed by the key: a change of the algorithm would give a staged issuance's later assertions
// other serials than its first ones, so this example pins it.
func ExampleNumberer_Number() {
	s, _ := New(uuid.MustParse("3f2a9c1e-0000-4000-8000-000000000000"), make([]byte, KeySize))
	fmt.Println(s.Number(1), s.Number(2))
	// Output: 3f2a9c1e-5E2G-X61W 3f2a9c1e-2RVE-P2DC
}
