package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/apikey"
)

func (f *issFixture) postRenewals(tb testing.TB, key, idem, body string) response {
	tb.Helper()
	if k, ok := f.keys[key]; ok {
		key = k
	}
	return f.postIssuanceTo(tb, "/public/v3/badges/"+f.vars["{badge1m}"]+"/renewals", key, idem, body)
}

func idsBody(ids ...string) string {
	return `{"assertionIds":["` + strings.Join(ids, `","`) + `"]}`
}

// TestRenewals_ByIDs: one issuance of replacements (one per named original, renewal set, new validity), one credit
// each, started once; its progress reads like an issuance's; replays answer the same and cost nothing.
func TestRenewals_ByIDs(t *testing.T) {
	f := newIssFixture(t)
	soon := issNow.Add(3 * 24 * time.Hour)
	a := f.mustExpiring(t, "manager", "a@example.com", "RECEIVED", soon)
	b := f.mustExpiring(t, "manager", "b@example.com", "EXPIRED", issNow.Add(-time.Hour))
	balance, started := credits(t, f.d, f.org), len(f.starter.calls())

	r := f.postRenewals(t, "manager", "bulk-1", idsBody(b, a))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	data := jget(t, r.Body, "data").(map[string]any)
	require.EqualValues(t, 2, data["assertionCount"])
	require.Equal(t, "PROCESSING", data["processingStatus"])
	require.Equal(t, map[string]any{"PROCESSING": float64(2)}, data["countsByState"])
	require.Equal(t, balance-2, credits(t, f.d, f.org), "one credit per renewal")
	require.Len(t, f.starter.calls(), started+1, "one workflow for the whole renewal")

	rows, err := f.d.Pool.Query(context.Background(), `SELECT reissued_from::text, renewal, seq, issued_at = $2, serial_number
		FROM assertions WHERE issuance_id = $1 ORDER BY seq`, data["id"], issNow)
	require.NoError(t, err)
	var froms []string
	serials := map[string]bool{}
	for i := 0; rows.Next(); i++ {
		var from, serial string
		var renewal, now bool
		var seq int
		require.NoError(t, rows.Scan(&from, &renewal, &seq, &now, &serial))
		require.True(t, renewal && now)
		require.Equal(t, i, seq)
		froms, serials[serial] = append(froms, from), true
	}
	require.NoError(t, rows.Err())
	require.ElementsMatch(t, []string{a, b}, froms)
	require.Len(t, serials, 2)

	assertions := countRows(t, f.d, "assertions", f.org)
	again := f.postRenewals(t, "manager", "bulk-1", idsBody(a, b)) // the same set in another order is the same request
	require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
	require.Equal(t, data["id"], jget(t, again.Body, "data.id"))
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org))
	require.Equal(t, balance-2, credits(t, f.d, f.org))
	requireError(t, f.postRenewals(t, "manager", "bulk-1", idsBody(a)), "/public/v3/badges/"+f.vars["{badge1m}"]+"/renewals", http.StatusConflict, "ISS057")

	got := f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge1m}"]+"/renewals/"+data["id"].(string), f.keys["viewer"], "")
	require.Equal(t, data["id"], got["id"])
	f.setState(t, froms[0], "REISSUED")
	_, err = f.d.Pool.Exec(context.Background(), "UPDATE assertions SET state = 'RECEIVED' WHERE issuance_id = $1 AND seq = 0", data["id"])
	require.NoError(t, err)
	got = f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge1m}"]+"/renewals/"+data["id"].(string), f.keys["viewer"], "")
	require.Equal(t, map[string]any{"PROCESSING": float64(1), "RECEIVED": float64(1)}, got["countsByState"])
	// Not a renewal, another badge, another mode: ISS001.
	iss := f.mustIssue(t, "v3", "{badge1m}", "manager", "plain", issuanceBody("{program}", rcpt("C", "c@example.com")))
	for _, p := range []string{
		"/public/v3/badges/" + f.vars["{badge1m}"] + "/renewals/" + jstr(t, iss, "id"),
		"/public/v3/badges/" + f.vars["{badge}"] + "/renewals/" + data["id"].(string),
	} {
		requireError(t, f.do(t, http.MethodGet, p, f.keys["viewer"], ""), p, http.StatusNotFound, "ISS001")
	}
	testKey := mustModeKey(t, f.d, f.org, apikey.RoleViewer, apikey.ModeTest)
	p := "/public/v3/badges/" + f.vars["{badge1m}"] + "/renewals/" + data["id"].(string)
	requireError(t, f.do(t, http.MethodGet, p, testKey, ""), p, http.StatusNotFound, "ISS001")
}

// TestRenewals_Refusals: a bad request names its field (COM006), nothing is written.
func TestRenewals_Refusals(t *testing.T) {
	f := newIssFixture(t)
	ok := f.mustExpiring(t, "manager", "ok@example.com", "RECEIVED", issNow.Add(time.Hour))
	revoked := f.mustExpiring(t, "manager", "revoked@example.com", "REVOKED", issNow.Add(time.Hour))
	pending := f.mustExpiring(t, "manager", "pending@example.com", "RECEIVED", issNow.Add(time.Hour))
	require.Equal(t, http.StatusOK, f.postRenew(t, pending, "manager", "single", "").Status)
	other := f.mustIssue(t, "v3", "{badge}", "manager", "other", issuanceBody("{program}", rcpt("O", "o@example.com")))
	var otherBadge string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1", jstr(t, other, "id")).Scan(&otherBadge))
	assertions, balance := countRows(t, f.d, "assertions", f.org), credits(t, f.d, f.org)
	path := "/public/v3/badges/" + f.vars["{badge1m}"] + "/renewals"

	for body, fields := range map[string][]string{
		`{}`:                              {"assertionIds"},
		`{"assertionIds":[]}`:             {"assertionIds"},
		`{"assertionIds":["x"]}`:          {"assertionIds[0]"},
		`{"expiringBefore":"2025-13-01"}`: {"expiringBefore"},
		`{"expiringBefore":"2025-03-01","assertionIds":["` + ok + `"]}`: {"assertionIds"},
		`{"expiringBefore":"2025-01-01"}`:                               {"expiringBefore"}, // nothing expires before it
		`{"bogus":1,"expiringBefore":"2026-01-01"}`:                     {"bogus"},
		idsBody(ok, revoked, pending, otherBadge, uuid.NewString()):     {"assertionIds[1]", "assertionIds[2]", "assertionIds[3]", "assertionIds[4]"},
	} {
		code := "COM006"
		if strings.Contains(body, `"x"`) || strings.Contains(body, "2025-13") {
			code = "COM002" // a malformed value, as everywhere in the API
		}
		requireError(t, f.postRenewals(t, "manager", "bad", body), path, http.StatusBadRequest, code, fields...)
	}
	requireError(t, f.postRenewals(t, "viewer", "k", idsBody(ok)), path, http.StatusForbidden, "ORG004")
	// An unknown badge, or a deleted one, is not found, as on every badge route, never "was deleted".
	f.mustOK(t, http.MethodDelete, "/public/v3/badges/"+f.vars["{badge2}"], f.keys["manager"], "")
	for _, badge := range []string{uuid.NewString(), f.vars["{badge2}"]} {
		unknown := "/public/v3/badges/" + badge + "/renewals"
		for _, body := range []string{idsBody(ok), `{"expiringBefore":"2030-01-01"}`} {
			r := f.postIssuanceTo(t, unknown, f.keys["manager"], "unknown-badge", body)
			requireError(t, r, unknown, http.StatusNotFound, "BDG001")
			require.Equal(t, "badge "+badge+" not found", jget(t, r.Body, "error.message"))
		}
	}
	setCredits(t, f.d, f.org, 0)
	requireError(t, f.postRenewals(t, "manager", "k", idsBody(ok)), path, http.StatusPaymentRequired, "PAY054")
	setCredits(t, f.d, f.org, balance)
	// A test key sees only test assertions: a live id is not found.
	testKey := mustModeKey(t, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
	requireError(t, f.postRenewals(t, testKey, "k", idsBody(ok)), path, http.StatusBadRequest, "COM006", "assertionIds[0]")
	requireError(t, f.postRenewals(t, testKey, "k", `{"expiringBefore":"2030-01-01"}`), path, http.StatusBadRequest, "COM006", "expiringBefore")
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org), "a refused renewal writes nothing")
	require.Equal(t, balance, credits(t, f.d, f.org))
}

// TestRenewals_ExpiringBefore: the date takes every renewable assertion of the badge and mode expiring before its
// start in Seoul, leaving out those expiring later, those not renewable and those already being replaced. Two
// concurrent bulk renewals under different keys never renew one original twice.
func TestRenewals_ExpiringBefore(t *testing.T) {
	f := newIssFixture(t)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	cut := time.Date(2025, 3, 1, 0, 0, 0, 0, seoul)
	in1 := f.mustExpiring(t, "manager", "in1@example.com", "RECEIVED", cut.Add(-time.Second))
	in2 := f.mustExpiring(t, "manager", "in2@example.com", "EXPIRED", issNow.Add(-48*time.Hour))
	in3 := f.mustExpiring(t, "manager", "in3@example.com", "ISSUED", cut.Add(-24*time.Hour))
	f.mustExpiring(t, "manager", "later@example.com", "RECEIVED", cut)
	f.mustExpiring(t, "manager", "revoked@example.com", "REVOKED", cut.Add(-time.Hour))
	busy := f.mustExpiring(t, "manager", "busy@example.com", "RECEIVED", cut.Add(-time.Hour))
	require.Equal(t, http.StatusOK, f.postRenew(t, busy, "manager", "single", "").Status)
	testKey := mustModeKey(t, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
	f.mustExpiring(t, testKey, "test@example.com", "RECEIVED", cut.Add(-time.Hour))
	balance := credits(t, f.d, f.org)

	out := make([]response, 4)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = f.postRenewals(t, "manager", "date-"+string(rune('a'+i)), `{"expiringBefore":"2025-03-01"}`)
		}()
	}
	wg.Wait()
	var won []response
	for _, r := range out {
		if r.Status == http.StatusOK {
			won = append(won, r)
			continue
		}
		requireError(t, r, "/public/v3/badges/"+f.vars["{badge1m}"]+"/renewals", http.StatusBadRequest, "COM006", "expiringBefore")
	}
	require.Len(t, won, 1, "the first takes them all; the others find none left")
	id := jstr(t, won[0].Body, "data.id")
	rows, err := f.d.Pool.Query(context.Background(), "SELECT reissued_from::text FROM assertions WHERE issuance_id = $1", id)
	require.NoError(t, err)
	var froms []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		froms = append(froms, s)
	}
	require.NoError(t, rows.Err())
	require.ElementsMatch(t, []string{in1, in2, in3}, froms)
	require.Equal(t, balance-3, credits(t, f.d, f.org))

	// The test key's renewal takes the test assertion only, for free.
	r := f.postRenewals(t, testKey, "date-test", `{"expiringBefore":"2025-03-01"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.EqualValues(t, 1, jget(t, r.Body, "data.assertionCount"))
	require.Equal(t, balance-3, credits(t, f.d, f.org))
}
