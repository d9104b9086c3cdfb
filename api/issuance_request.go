package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/badged/badged/internal/credential"
)

// Issuance request limits (DESIGN.md "Limits"; README "Hostile input"). 100,000 recipients of the usual size
// (name, email, receiveType: ~80–120 bytes each) make 8–12 MB of JSON; 32 MiB leaves room for long names and
// sourcedIds, and gzip (readIssuanceBody) takes the wire size down to about a tenth.
const (
	maxRecipients     = 100_000
	maxIssuanceBody   = 32 << 20
	maxIdempotencyKey = 300
	maxRecipientName  = 100
	maxEmailLen       = 254
	maxSourcedIDLen   = 255
	receiveTypeEmail  = "EMAIL"
	receiveTypeKakao  = "KAKAOTALK"
	headerIdempotency = "Idempotency-Key"
)

// recipient is one normalized recipient: email trimmed and lower-cased, phone in E.164 form, text trimmed.
type recipient struct {
	Name        string  `json:"name"`
	Email       *string `json:"email"`
	PhoneNumber *string `json:"phoneNumber"`
	SourcedID   *string `json:"sourcedId"`
	ReceiveType string  `json:"receiveType"`
	// Evidence is v3's (api/evidence.go); omitted from the request hash when empty, so requests without evidence
	// hash as they did before it existed.
	Evidence []credential.Evidence `json:"evidence,omitempty"`
}

// issuanceRequest is a validated, normalized POST /badges/{id}/issuances.
type issuanceRequest struct {
	Recipients []recipient `json:"recipients"`
	ProgramID  uuid.UUID   `json:"programId"`
	IssuedAt   *time.Time  `json:"issuedAt"` // v3 only; nil = omitted or null
	raw        []byte      // the body as sent, for v2's idempotency
}

// readIssuanceRequest validates every field, naming the failing recipient index and field.
func readIssuanceRequest(o *object, v version) issuanceRequest {
	allowed := []string{"recipients", "programId"}
	if v == v3 {
		allowed = append(allowed, "issuedAt")
	}
	o.only(allowed...)
	var req issuanceRequest
	program := o.id("programId", false)
	requireFields(o, map[string]bool{"programId": program.Set, "recipients": o.has("recipients")})
	req.ProgramID = program.Val
	o.objects("recipients", 1, maxRecipients, func(i int, r *object) {
		req.Recipients = append(req.Recipients, readRecipient(r, v))
	})
	return req
}

// The fields of a recipient, per version.
var (
	recipientFieldsV2 = []string{"name", "email", "phoneNumber", "receiveType"}
	recipientFieldsV3 = []string{"name", "email", "phoneNumber", "receiveType", "sourcedId", "evidence"}
)

func readRecipient(r *object, v version) recipient {
	if v == v3 {
		r.only(recipientFieldsV3...)
	} else {
		r.only(recipientFieldsV2...)
	}
	name := r.text("name", textRule{max: maxRecipientName})
	kind := r.enum("receiveType", false, receiveTypeEmail, receiveTypeKakao)
	if !name.Set || !kind.Set {
		requireFields(r, map[string]bool{"name": name.Set, "receiveType": kind.Set})
	}
	out := recipient{Name: name.Val, ReceiveType: kind.Val}
	if e := r.text("email", textRule{nullable: true, max: maxEmailLen}); e.Set && !e.Null {
		if email, ok := normalizeEmail(e.Val); ok {
			out.Email = &email
		} else {
			r.badFormat("email", "must be an email address such as name@example.com")
		}
	}
	if p := r.text("phoneNumber", textRule{nullable: true, max: 32}); p.Set && !p.Null {
		if phone, ok := normalizePhone(p.Val); ok {
			out.PhoneNumber = &phone
		} else {
			r.badFormat("phoneNumber", "must be a phone number such as 010-1234-5678 or +82 10 1234 5678")
		}
	}
	if s := r.text("sourcedId", textRule{nullable: true, max: maxSourcedIDLen}); s.Set && !s.Null {
		out.SourcedID = &s.Val
	}
	if v == v3 {
		out.Evidence = readEvidence(r)
	}
	return out
}

// normalizeEmail trims and lower-cases an address and checks it is a bare addr-spec with a dotted domain.
func normalizeEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if plainEmail(s) {
		return s, true // what mail.ParseAddress accepts as itself, without its parser (FuzzPlainEmail)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 1 || !strings.Contains(s[at+1:], ".") || strings.HasSuffix(s, ".") {
		return "", false
	}
	return s, true
}

// plainEmail reports whether s is an address of the usual shape, in lower case: a dot-atom local part of letters,
// digits and ._%+- and a domain of two or more labels of letters, digits and hyphens. Every such address is one
// mail.ParseAddress reads back as itself with a dotted domain, so normalizeEmail accepts it without the parser
// (a quarter of the CPU of reading 100,000 recipients went to it); anything else still goes through the parser.
func plainEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	if at < 1 || !dotAtom(s[:at], "._%+-") || !dotAtom(s[at+1:], ".-") {
		return false
	}
	return strings.Contains(s[at+1:], ".")
}

// dotAtom reports whether s is non-empty runs of [a-z0-9] and extra, with single dots between runs.
func dotAtom(s, extra string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && strings.IndexByte(extra, c) < 0 {
			return false
		}
	}
	return true
}

// normalizePhone returns a phone number in E.164 form. Separators (space, -, ., parentheses) are dropped; a
// national number starting with 0 is read as Korean (+82), the service's home region.
func normalizePhone(s string) (string, bool) {
	s = strings.TrimSpace(s)
	var digits strings.Builder
	plus := strings.HasPrefix(s, "+")
	if plus {
		s = s[1:]
	}
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	d := digits.String()
	switch {
	case plus:
	case strings.HasPrefix(d, "00"):
		d = d[2:]
	case strings.HasPrefix(d, "0"):
		d = "82" + d[1:]
	case strings.HasPrefix(d, "82"):
	default:
		return "", false
	}
	if len(d) < 8 || len(d) > 15 || d[0] == '0' {
		return "", false
	}
	return "+" + d, true
}

// minIssuedAt is the earliest issuedAt (README "Decisions"): the Unix epoch. issuedAt is signed as the credential's
// validFrom and its proof's created, so a date before any digital credential (year 0 was accepted) would be signed
// as a fact. The organization's creation is no bound: backdating exists to move records an organization issued
// elsewhere, before it came to badged.
var minIssuedAt = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// readIssuedAt reads v3's optional issuedAt through parseTime, the codes decided as follows:
//   - not ISO-8601, no zone, an offset beyond ±14:00: ISS058, the contract's "format or time zone error";
//   - later than now: ISS059;
//   - well formed but before minIssuedAt (year 0, 0001-01-01, 1969…): COM006 naming issuedAt, a rule the value
//     breaks, which ISS058's "send ISO-8601 with Z or an offset" would not help to fix.
func readIssuedAt(o *object, v version, now time.Time) (*time.Time, error) {
	if v != v3 || !o.has("issuedAt") || o.null("issuedAt") {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(o.raw["issuedAt"], &s); err != nil {
		return nil, issuedAtError(codeIssuedAtFormat, "issuedAt must be an ISO-8601 string with Z or an offset")
	}
	t, zoned, err := v.parseTime(s, time.UTC)
	switch {
	case errors.Is(err, errTimeOffset):
		return nil, issuedAtError(codeIssuedAtFormat, "issuedAt's offset must be between -14:00 and +14:00")
	case err != nil && !errors.Is(err, errTimeRange), !zoned:
		return nil, issuedAtError(codeIssuedAtFormat, "issuedAt must be ISO-8601 with Z or an offset, for example 2025-03-01T09:00:00+09:00")
	case t.After(now): // year 9999 included, whatever parseTime's bounds say
		return nil, issuedAtError(codeIssuedAtFuture, "issuedAt is later than the server's current time "+now.UTC().Format(time.RFC3339))
	case t.Before(minIssuedAt): // parseTime's lower bound included
		return nil, issuedAtError(codeValidation, "issuedAt must not be earlier than "+minIssuedAt.Format(time.RFC3339))
	}
	return &t, nil
}

func issuedAtError(code, msg string) error {
	return &apiError{status: statusOf(code), code: code, msg: msg, fields: []fieldError{{Field: "issuedAt", Message: msg}}}
}

// keyedWrite is what an idempotent write on one resource (reissue, renew, bulk renewal) reads first, in the
// contract's order: the path id, the Idempotency-Key (ISS056), the body up to its limit, and the key's scope.
type keyedWrite struct {
	id   uuidValue
	key  string
	body []byte
	sc   scope
}

func readKeyedWrite(w http.ResponseWriter, r *http.Request, idParam string, limit int64) (keyedWrite, error) {
	id, err := pathID(r, idParam)
	if err != nil {
		return keyedWrite{}, err
	}
	key := r.Header.Get(headerIdempotency)
	if err := checkIdempotencyKey(key); err != nil {
		return keyedWrite{}, err
	}
	body, err := readBody(w, r, limit)
	if err != nil {
		return keyedWrite{}, err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return keyedWrite{}, err
	}
	return keyedWrite{id: id, key: key, body: body, sc: sc}, nil
}

// checkIdempotencyKey enforces 1..300 characters (ISS056).
func checkIdempotencyKey(key string) error {
	n := utf8.RuneCountInString(key)
	if n == 0 || n > maxIdempotencyKey || strings.TrimFunc(key, unicode.IsSpace) == "" {
		return &apiError{status: statusOf(codeIdempotencyKey), code: codeIdempotencyKey,
			msg:    fmt.Sprintf("the %s header must be 1 to %d characters", headerIdempotency, maxIdempotencyKey),
			fields: []fieldError{{Field: headerIdempotency, Message: fmt.Sprintf("must be 1 to %d characters, got %d", maxIdempotencyKey, n)}}}
	}
	return nil
}

// requestHash is what the idempotency rules compare, per version:
//   - v2: the body as sent (canonical JSON of it: key order and white space do not matter, every value and the
//     recipient order do);
//   - v3: the normalized request (trimmed, lower-cased email, E.164 phone, order kept, issuedAt as an instant,
//     omitted = null).
func (req issuanceRequest) requestHash(v version) ([]byte, error) {
	var payload []byte
	var err error
	if v == v2 {
		payload, err = canonicalJSON(req.raw)
	} else {
		payload, err = req.normalizedJSON()
	}
	if err != nil {
		return nil, fmt.Errorf("hash issuance request: %w", err)
	}
	sum := sha256.Sum256(append([]byte(fmt.Sprintf("v%d\n", v)), payload...))
	return sum[:], nil
}

// canonicalJSON is raw re-encoded with sorted object keys and no white space, numbers kept as written: the form
// v2 request hashes are taken over, so key order and spacing do not change a request's identity.
func canonicalJSON(raw []byte) ([]byte, error) {
	var body any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return nil, err
	}
	return json.Marshal(body) // maps marshal with sorted keys
}
