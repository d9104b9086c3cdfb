package expiry

import (
	"testing"
	"time"
)

func TestRelative(t *testing.T) {
	seoul, err := time.LoadLocation("Asia/Seoul")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		issued time.Time
		months int
		want   string // in Seoul
	}{
		{"plain", time.Date(2025, 3, 10, 15, 30, 0, 0, seoul), 12, "2026-03-10T00:00:00+09:00"},
		{"seoul date differs from UTC date", time.Date(2025, 3, 10, 20, 0, 0, 0, time.UTC), 1, "2025-04-11T00:00:00+09:00"},
		{"clamp to February", time.Date(2025, 1, 31, 9, 0, 0, 0, seoul), 1, "2025-02-28T00:00:00+09:00"},
		{"clamp to leap February", time.Date(2024, 1, 31, 9, 0, 0, 0, seoul), 1, "2024-02-29T00:00:00+09:00"},
		{"clamp to 30-day month", time.Date(2025, 5, 31, 9, 0, 0, 0, seoul), 1, "2025-06-30T00:00:00+09:00"},
		{"year rollover", time.Date(2025, 11, 30, 9, 0, 0, 0, seoul), 3, "2026-02-28T00:00:00+09:00"},
		{"many years", time.Date(2025, 2, 28, 9, 0, 0, 0, seoul), 120, "2035-02-28T00:00:00+09:00"},
		{"december", time.Date(2025, 12, 15, 0, 0, 0, 0, seoul), 12, "2026-12-15T00:00:00+09:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Relative(c.issued, c.months, seoul).Format(time.RFC3339)
			if got != c.want {
				t.Fatalf("Relative(%v, %d) = %s, want %s", c.issued, c.months, got, c.want)
			}
		})
	}
}

// TestTest: a test credential expires with its badge when that comes first, else TestValidity after the request,
// whatever its issuedAt.
func TestTest(t *testing.T) {
	now := time.Date(2025, 5, 1, 9, 30, 15, 500, time.UTC)
	limit := time.Date(2025, 5, 31, 9, 30, 15, 0, time.UTC)
	soon := now.Add(48 * time.Hour)
	later := now.Add(90 * 24 * time.Hour)
	for _, c := range []struct {
		name   string
		policy *time.Time
		want   time.Time
	}{{"no policy", nil, limit}, {"policy sooner", &soon, soon}, {"policy later", &later, limit}} {
		got := Test(c.policy, now)
		if got == nil || !got.Equal(c.want) {
			t.Errorf("%s: Test = %v, want %v", c.name, got, c.want)
		}
	}
}
