package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/badged/badged/db"
)

// Fuzz targets for the request decoders, the datetime parsers and the idempotency normalizer. Run one with e.g.
//
//	go test ./api -run '^$' -fuzz '^FuzzDecodeBody$' -fuzztime 20s
//
// Without -fuzz they run their seed corpus as ordinary tests.

var fuzzSeoul = defaultLocation()

// fuzzVersion maps a fuzzed byte to a mounted version.
func fuzzVersion(b uint8) version {
	if b%2 == 0 {
		return v2
	}
	return v3
}

// fuzzObject decodes body as a request of version v would be.
func fuzzObject(body []byte, v version) (*object, error) {
	h := &handler{loc: fuzzSeoul}
	r := httptest.NewRequestWithContext(withVersion(context.Background(), v), http.MethodPost, "/", bytes.NewReader(body))
	return h.decodeBody(httptest.NewRecorder(), r, maxJSONBody)
}

// requireClientError fails unless err is nil or an *apiError with a 4xx status: anything else would be a 500.
func requireClientError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		t.Fatalf("%s: %T is not an *apiError: %v", what, err, err)
	}
	if ae.status < 400 || ae.status > 499 || ae.status != statusOf(ae.code) && ae.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("%s: status %d for code %s: %v", what, ae.status, ae.code, err)
	}
}

func FuzzDecodeBody(f *testing.F) {
	seeds := []string{
		``, `null`, `[]`, `{}`, `{"a":1} {}`, `{"name":"x"`, "\xff\xfe",
		`{"name":"Go","categoryCode":"EDUCATION","imageId":"8d1b0a4e-2f3c-4b5d-9e6f-0a1b2c3d4e5f","url":"https://x.io",` +
			`"startsAt":"2025-03-01T09:00:00","endsAt":"2025-03-01T09:00:00+09:00","isVisibleAtOrganizationPage":true,` +
			`"badgeIds":["8d1b0a4e-2f3c-4b5d-9e6f-0a1b2c3d4e5f"],"description":null}`,
		`{"name":"B","description":"d","categoryCode":"COMPLETION","criteria":[{"category":"COMPLETION","value":"v"}],` +
			`"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],"imageId":"8d1b0a4e-2f3c-4b5d-9e6f-0a1b2c3d4e5f",` +
			`"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2030-12-31T00:00:00Z"},"programIds":[],"signatureImageId":null}`,
		`{"expirationPolicy":{"relativeExpirationMonths":1e400},"programIds":[1,null,"x"],"criteria":{}}`,
		`{"programId":"8d1b0a4e-2f3c-4b5d-9e6f-0a1b2c3d4e5f","issuedAt":"2025-01-31T15:30:00Z","recipients":[` +
			`{"name":" Kim ","email":" A.B@Example.COM ","receiveType":"EMAIL","sourcedId":"s-1"},` +
			`{"name":"Lee","phoneNumber":"010-1234-5678","receiveType":"KAKAOTALK"}]}`,
		`{"programId":null,"recipients":[{"name":"","email":"@","phoneNumber":"+","receiveType":"FAX"},null,7],"issuedAt":5}`,
		`{"publishStatusCode":"DRAFT","startsAt":"2025-13-45T99:99:99","endsAt":"9999-12-31T23:59:59.999999999Z"}`,
		`{"name":"a","name":"b"}`, `{"recipients":[{"email":"a@b.c"},{"email":"x@y.z","email":"a@b.c"}]}`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i))
	}
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte, vb uint8) {
		v := fuzzVersion(vb)
		o, err := fuzzObject(body, v)
		if err != nil {
			requireClientError(t, "decodeBody", err)
			return
		}

		in := readBadgeInput(o)
		if err := o.err(); err != nil {
			requireClientError(t, "readBadgeInput", err)
		} else {
			requireClientError(t, "badgeInput.apply", in.apply(new(db.Badge)))
		}

		o, _ = fuzzObject(body, v)
		pin := readProgramInput(o)
		if err := o.err(); err != nil {
			requireClientError(t, "readProgramInput", err)
		} else {
			pin.apply(new(db.Program))
		}

		o, _ = fuzzObject(body, v)
		req := readIssuanceRequest(o, v)
		if err := o.err(); err != nil {
			requireClientError(t, "readIssuanceRequest", err)
			return
		}
		req.raw = o.body
		if req.IssuedAt, err = readIssuedAt(o, v, now); err != nil {
			requireClientError(t, "readIssuedAt", err)
			return
		}
		if _, err := req.requestHash(v); err != nil {
			t.Fatalf("requestHash of an accepted request: %v", err)
		}
		for i, rc := range req.Recipients {
			if rc.Email != nil && strings.ToLower(strings.TrimSpace(*rc.Email)) != *rc.Email {
				t.Fatalf("recipient %d: email %q is not normalized", i, *rc.Email)
			}
			if rc.PhoneNumber != nil && !strings.HasPrefix(*rc.PhoneNumber, "+") {
				t.Fatalf("recipient %d: phone %q is not E.164", i, *rc.PhoneNumber)
			}
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"2025-03-01T09:00:00", "2025-03-01T09:00", "2025-03-01T09:00:00.123456789", "2025-03-01T09:00:00Z",
		"2025-03-01T09:00:00+09:00", "2025-03-01T09:00:00.5-03:30", " 2025-03-01T09:00:00Z ", "2025-02-30T00:00:00",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59+14:00", "2025-03-01", "", "T", "2025-03-01T24:00:00Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range versions {
			got, zoned, err := v.parseTime(s, fuzzSeoul)
			if err != nil {
				continue
			}
			if v == v2 && !zoned {
				t.Fatalf("v2 %q: a v2 success is always usable (zoned=true)", s)
			}
			if v == v3 && zoned != hasZone(s) {
				t.Fatalf("v3 %q: zoned=%v, but the text says %v", s, zoned, hasZone(s))
			}
			if !zoned {
				continue // the caller rejects it; there is nothing to write back
			}
			// Every accepted instant lies within the bounds (version.go), so it is a four-digit year however it is
			// written, and written the version's way it reads back as the same instant, to the second that both
			// wire forms keep.
			if got.Before(minTime) || !got.Before(maxTime) {
				t.Fatalf("%v %q: accepted %s, outside the bounds", v, s, got)
			}
			out := v.formatTime(got, fuzzSeoul)
			if len(out) < 4 || out[4] != '-' || out[0] == '-' {
				t.Fatalf("%v %q: written %q, not a four-digit year", v, s, out)
			}
			back, zoned2, err := v.parseTime(out, fuzzSeoul)
			if err != nil || !zoned2 {
				t.Fatalf("%v %q: formatted %q does not parse back: zoned=%v err=%v", v, s, out, zoned2, err)
			}
			if !back.Equal(got.Truncate(time.Second)) {
				t.Fatalf("%v %q: round trip %q gives %s, want %s", v, s, out, back, got.Truncate(time.Second))
			}
		}
	})
}

// hasZone reports whether a datetime the parser accepted carries Z or an offset after its time of day.
func hasZone(s string) bool {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, 'T')
	if i < 0 {
		i = strings.IndexByte(s, 't')
	}
	rest := s[i+1:]
	return strings.ContainsAny(rest, "Zz+-")
}

func FuzzIdempotencyHash(f *testing.F) {
	f.Add("Kim", "minji.kim@example.com", "010-1234-5678", uint8(0), uint8(0))
	f.Add("박서준", "Park@Example.COM", "+82 10 9876 5432", uint8(3), uint8(5))
	f.Add("x", "a@b.co", "00 82 10 1111 2222", uint8(255), uint8(7))
	f.Fuzz(func(t *testing.T, name, email, phone string, caseMask, sepMask uint8) {
		base := issuanceJSON(name, email, phone)
		o, err := fuzzObject(base, v3)
		if err != nil {
			return
		}
		req := readIssuanceRequest(o, v3)
		if o.err() != nil {
			return // only accepted requests are hashed
		}
		req.raw = o.body
		mutEmail, mutPhone := mutateEmail(email, caseMask), mutatePhone(phone, sepMask)
		mutated := issuanceJSON(name, mutEmail, mutPhone)
		for _, v := range versions {
			o1, _ := fuzzObject(base, v)
			r1 := readIssuanceRequest(o1, v)
			r1.raw = o1.body
			o2, err := fuzzObject(mutated, v)
			if err != nil {
				t.Fatalf("%v: the mutated body %s does not decode: %v", v, mutated, err)
			}
			r2 := readIssuanceRequest(o2, v)
			if err := o2.err(); err != nil {
				t.Fatalf("%v: email %q / phone %q normalize, but the mutation %q / %q is rejected: %v",
					v, email, phone, mutEmail, mutPhone, err)
			}
			r2.raw = o2.body
			h1, err1 := r1.requestHash(v)
			h2, err2 := r2.requestHash(v)
			if err1 != nil || err2 != nil {
				t.Fatalf("%v: hash: %v / %v", v, err1, err2)
			}
			same := bytes.Equal(h1, h2)
			switch {
			case v == v3 && !same:
				t.Fatalf("v3: %q/%q and %q/%q normalize alike but hash differently", email, phone, mutEmail, mutPhone)
			case v == v2 && same != bytes.Equal(base, mutated):
				t.Fatalf("v2 hashes the body as sent: %s vs %s, equal hashes %v", base, mutated, same)
			}
		}
	})
}

// issuanceJSON is a one-recipient issuance body; the strings are JSON-escaped.
func issuanceJSON(name, email, phone string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"programId":"8d1b0a4e-2f3c-4b5d-9e6f-0a1b2c3d4e5f","recipients":[{"name":`)
	b.WriteString(jsonString(name))
	b.WriteString(`,"email":`)
	b.WriteString(jsonString(email))
	b.WriteString(`,"phoneNumber":`)
	b.WriteString(jsonString(phone))
	b.WriteString(`,"receiveType":"EMAIL"}]}`)
	return b.Bytes()
}

// mutateEmail changes what normalizeEmail discards: ASCII letter case (bit i of mask flips letter i) and
// surrounding spaces (bit 7).
func mutateEmail(s string, mask uint8) string {
	b := []byte(s)
	n := 0
	for i, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if mask&(1<<(n%7)) != 0 {
				b[i] ^= 0x20
			}
			n++
		}
	}
	if mask&0x80 != 0 {
		return "  " + string(b) + "\t"
	}
	return string(b)
}

// mutatePhone changes what normalizePhone discards: separators between digits, chosen by mask.
func mutatePhone(s string, mask uint8) string {
	seps := []string{"", " ", "-", ".", "(", ")"}
	var b strings.Builder
	for i, r := range s {
		switch r {
		case ' ', '-', '.', '(', ')':
			b.WriteString(seps[(int(mask)+i)%len(seps)]) // swap one separator for another (or none)
		default:
			b.WriteRune(r)
			if r >= '0' && r <= '9' && mask&(1<<(i%8)) != 0 {
				b.WriteString(seps[1+(i%(len(seps)-1))])
			}
		}
	}
	return b.String()
}

func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{"a@b.co", " Minji.Kim@Example.COM ", "\"q\"@x.io", "a@b", "a@b.", "<a@b.co>", "İ@x.io", "ſ@k.io"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once, ok := normalizeEmail(s)
		if !ok {
			return
		}
		twice, ok := normalizeEmail(once)
		if !ok || twice != once {
			t.Fatalf("normalizeEmail(%q) = %q, but normalizing that gives %q, %v", s, once, twice, ok)
		}
	})
}

func FuzzNormalizePhone(f *testing.F) {
	for _, s := range []string{"010-1234-5678", "+82 10 1234 5678", "(02) 123.4567", "0082 10 1111 2222", "821012345678", "+0", "٠١٠"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once, ok := normalizePhone(s)
		if !ok {
			return
		}
		if !strings.HasPrefix(once, "+") || len(once) < 9 || len(once) > 16 {
			t.Fatalf("normalizePhone(%q) = %q is not E.164", s, once)
		}
		twice, ok := normalizePhone(once)
		if !ok || twice != once {
			t.Fatalf("normalizePhone(%q) = %q, but normalizing that gives %q, %v", s, once, twice, ok)
		}
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
