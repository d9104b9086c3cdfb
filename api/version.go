package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// version is the API version of a request. Every v2/v3 difference of the contract is a method here, so that
// handlers never branch on the version number themselves.
type version int

const (
	v2 version = 2
	v3 version = 3
)

// versions lists the mounted versions; the route table is built once per entry.
var versions = []version{v2, v3}

func (v version) prefix() string {
	if v == v2 {
		return "/public/v2"
	}
	return "/public/v3"
}

// localLayout is v2's wire form: a local date-time in the service time zone, without offset.
const localLayout = "2006-01-02T15:04:05"

// formatTime writes a datetime: v2 as local date-time without offset in loc, v3 as a UTC instant.
func (v version) formatTime(t time.Time, loc *time.Location) string {
	if v == v2 {
		return t.In(loc).Format(localLayout)
	}
	return t.UTC().Format(time.RFC3339)
}

// formatTimePtr is formatTime for nullable columns.
func (v version) formatTimePtr(t *time.Time, loc *time.Location) *string {
	if t == nil {
		return nil
	}
	s := v.formatTime(*t, loc)
	return &s
}

// The bounds every request datetime and date is held to (README "Hostile input"), checked here, where each one is
// read, so that no value outside reaches Postgres, a signature or a response:
//   - from 1900-01-01T00:00:00Z: year 0 and the other years before it are no date a badge, a program or a filter
//     means (Postgres refuses year 0 written as a date: the stats routes answered 500 for it);
//   - before 9999-12-31T00:00:00Z: the last day of year 9999 is left out so that every instant is still a
//     four-digit year in every time zone a response writes it in (v3 in UTC, v2 in the service time zone):
//     9999-12-31T23:59:59-14:00 is 10000-01-01 in UTC, which no RFC 3339 date can say.
//
// A value outside, well formed, breaks a rule (COM006); offsets beyond ±14:00, which no time zone has, are a time
// zone error, reported with the format code (COM002; ISS058 for issuedAt).
var (
	minTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC) // excluded
)

// maxUTCOffset is the largest UTC offset a request datetime may carry, in seconds: the time zones in use span
// -12:00 to +14:00.
const maxUTCOffset = 14 * 60 * 60

// errTimeRange is a well-formed datetime or date outside [minTime, maxTime).
var errTimeRange = errors.New("outside the accepted range")

// errTimeOffset is a datetime whose offset is beyond ±14:00.
var errTimeOffset = errors.New("offset beyond ±14:00")

// rangeHint says the accepted range in a field message.
const rangeHint = "must be between 1900-01-01T00:00:00Z and 9999-12-30T23:59:59Z, once its offset is applied"

// parseTime reads a request datetime: the one place every datetime of both versions is read (query filters, body
// fields, issuedAt). v3 requires an explicit zone (`Z` or an offset); v2 takes the local form of its examples (read
// in loc) and, leniently, a zoned instant too. The bool is false for a v3 value without zone, so callers can report
// the version's code for it. err is errTimeOffset or errTimeRange for a value out of bounds (see minTime), another
// error for one that does not read; timeProblem turns each into its field error.
func (v version) parseTime(s string, loc *time.Location) (t time.Time, zoned bool, err error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true, checkTime(t)
	}
	local, err := parseLocal(s, loc)
	if err != nil {
		return time.Time{}, false, err
	}
	return local, v != v3, checkTime(local)
}

// checkTime holds a parsed datetime to the bounds.
func checkTime(t time.Time) error {
	if _, off := t.Zone(); off > maxUTCOffset || off < -maxUTCOffset {
		return errTimeOffset
	}
	if t.Before(minTime) || !t.Before(maxTime) {
		return errTimeRange
	}
	return nil
}

// timeProblem is the field error of a datetime parseTime refused (ok false when it did not): a value out of range
// breaks a rule (COM006), anything else is a format error (COM002) with the version's form in the message.
func (v version) timeProblem(name string, zoned bool, err error) (fe fieldError, bad bool) {
	bounds := errors.Is(err, errTimeRange) || errors.Is(err, errTimeOffset)
	switch { // the form first: a v3 value without zone is malformed whatever its year
	case err != nil && !bounds:
		return fieldError{Field: name, Message: "must be an ISO-8601 date-time" + v.timeHint(), format: true}, true
	case !zoned:
		return fieldError{Field: name, Message: "must carry a UTC designator (Z) or an offset such as +09:00", format: true}, true
	case errors.Is(err, errTimeOffset):
		return fieldError{Field: name, Message: "the offset must be between -14:00 and +14:00", format: true}, true
	case errors.Is(err, errTimeRange):
		return fieldError{Field: name, Message: rangeHint}, true
	}
	return fieldError{}, false
}

// parseDate reads a calendar date (YYYY-MM-DD) as the start of that day in loc (the stats routes' UTC days, a bulk
// renewal's date in the service time zone). The date itself must lie from 1900-01-01 to 9999-12-30, the days of
// the datetimes' bounds, whatever loc: its start in any zone is then a four-digit year everywhere. Its field error:
// dateProblem.
func parseDate(s string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(s), loc)
	if err != nil {
		return time.Time{}, err
	}
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	if day.Before(minTime) || !day.Before(maxTime) {
		return t, errTimeRange
	}
	return t, nil
}

// dateProblem is the field error of a date parseDate refused: out of range COM006, anything else COM002.
func dateProblem(name, given string, err error) fieldError {
	if errors.Is(err, errTimeRange) {
		return fieldError{Field: name, Message: "must be a date between 1900-01-01 and 9999-12-30, got " + quoteShort(given)}
	}
	return fieldError{Field: name, Message: "must be a date as YYYY-MM-DD, got " + quoteShort(given), format: true}
}

func parseLocal(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.ParseInLocation(localLayout, s, loc)
}

// recipientFilterConflict is the code for using more than one recipient filter on GET /assertions.
func (v version) recipientFilterConflict() string {
	if v == v2 {
		return codeFilterConflictV2
	}
	return codeFilterConflictV3
}

// listHiddenState is the state GET /assertions leaves out when no stateCode is asked for. The contract's viewer
// display filter shows ISSUED, RECEIVED and REISSUED in v2; v3 excludes REISSUED, a replaced original. An explicit
// stateCode=REISSUED still lists them in v3, so an integrator can find what was replaced.
func (v version) listHiddenState() *string {
	if v == v2 {
		return nil
	}
	s := string(db.AssertionReissued)
	return &s
}

type versionKey struct{}

func withVersion(ctx context.Context, v version) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// versionOf returns the request's API version; requests outside /public/vN are answered as v3.
func versionOf(ctx context.Context) version {
	if v, ok := ctx.Value(versionKey{}).(version); ok {
		return v
	}
	return v3
}

// requestVersion is versionOf for code that may run before the version's routes (the request guard, the router's
// 404): the version is then read from the path prefix.
func requestVersion(r *http.Request) version {
	if v, ok := r.Context().Value(versionKey{}).(version); ok {
		return v
	}
	return pathVersion(r.URL.Path)
}

// pathVersion is the version a path is under; v3 outside /public/vN.
func pathVersion(path string) version {
	if strings.HasPrefix(path, v2.prefix()+"/") {
		return v2
	}
	return v3
}

// timeHint completes a datetime format message with the version's expected form.
func (v version) timeHint() string {
	if v == v2 {
		return ", for example 2025-03-01T09:00:00"
	}
	return " with Z or an offset, for example 2025-03-01T09:00:00+09:00"
}

// credentialPath is where an assertion's credentialUrl points: v2 a public verification page, v3 the credential
// JSON under the credentials route (which also answers browsers with the same page).
func (v version) credentialPath(id uuid.UUID) string {
	if v == v2 {
		return "/verify/" + id.String()
	}
	return "/credentials/" + id.String()
}

// defaultLocation is the service time zone when Deps leaves it unset: Asia/Seoul, as DESIGN.md fixes.
func defaultLocation() *time.Location {
	if loc, err := time.LoadLocation("Asia/Seoul"); err == nil {
		return loc
	}
	return time.FixedZone("KST", 9*60*60) // Seoul has no daylight saving time
}
