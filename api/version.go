package api

import (
	"context"
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

// parseTime reads a request datetime. v3 requires an explicit zone (`Z` or an offset); v2 takes the local form of
// its examples (read in loc) and, leniently, a zoned instant too. The bool is false for a v3 value without zone,
// so callers can report the version's code for it.
func (v version) parseTime(s string, loc *time.Location) (t time.Time, zoned bool, err error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true, nil
	}
	local, err := parseLocal(s, loc)
	if err != nil {
		return time.Time{}, false, err
	}
	if v == v3 {
		return local, false, nil
	}
	return local, true, nil
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
