package api_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/expiry"
)

// postRenew posts POST /public/v3/assertions/{id}/renew; key names a fixture key or is sent as is.
func (f *issFixture) postRenew(tb testing.TB, assertion, key, idem, body string) response {
	tb.Helper()
	if k, ok := f.keys[key]; ok {
		key = k
	}
	return f.postIssuanceTo(tb, "/public/v3/assertions/"+assertion+"/renew", key, idem, body)
}

// mustExpiring issues one recipient of {badge1m} (one-month policy) and stores state and expiry as the pipeline and
// time would; it returns the assertion id.
func (f *issFixture) mustExpiring(tb testing.TB, key, email, state string, expiresAt time.Time) string {
	tb.Helper()
	if k, ok := f.keys[key]; ok {
		key = k
	}
	r := f.postIssuanceTo(tb, "/public/v3/badges/"+f.vars["{badge1m}"]+"/issuances", key, "issue-"+uuid.NewString(),
		issuanceBody("{program}", rcpt("Kim Minji", email)))
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	var id string
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(),
		"UPDATE assertions SET state = $2, expired_at = $3 WHERE issuance_id = $1 RETURNING id",
		jstr(tb, r.Body, "data.id"), state, expiresAt).Scan(&id))
	return id
}

// TestRenew_CreatesReplacement: a renewal is an issuance of one replacement with a NEW validity (issued now, one
// month from now by the badge's policy), renewal set, one credit, started like any issuance; ISSUED, RECEIVED and
// EXPIRED (stored or read) originals can be renewed; the original stays as it is until the replacement is issued.
func TestRenew_CreatesReplacement(t *testing.T) {
	f := newIssFixture(t)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	soon, past := issNow.Add(5*24*time.Hour), issNow.Add(-time.Hour)
	for _, tc := range []struct {
		state string
		exp   time.Time
	}{{"ISSUED", soon}, {"RECEIVED", soon}, {"EXPIRED", past}, {"RECEIVED", past}} {
		orig := f.mustExpiring(t, "manager", uuid.NewString()+"@example.com", tc.state, tc.exp)
		before, started := credits(t, f.d, f.org), len(f.starter.calls())
		r := f.postRenew(t, orig, "manager", "renew-"+orig, "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		data := jget(t, r.Body, "data").(map[string]any)
		require.ElementsMatch(t, []string{"id", "badgeId", "programId", "processingStatus", "assertionCount",
			"createdAt", "updatedAt", "assertionId"}, keys(data))
		require.Equal(t, "PROCESSING", data["processingStatus"])
		require.Equal(t, before-1, credits(t, f.d, f.org), "a renewal consumes one credit")
		require.Len(t, f.starter.calls(), started+1)

		var from string
		var renewal, issRenewal bool
		var issued, until time.Time
		require.NoError(t, f.d.Pool.QueryRow(context.Background(), `
			SELECT r.reissued_from::text, r.renewal, i.renewal, r.issued_at, r.expired_at
			FROM assertions r JOIN issuances i ON i.id = r.issuance_id WHERE r.id = $1`, data["assertionId"]).
			Scan(&from, &renewal, &issRenewal, &issued, &until))
		require.Equal(t, orig, from)
		require.True(t, renewal && issRenewal)
		require.True(t, issued.Equal(issNow), "issued now: %v", issued)
		require.True(t, until.Equal(expiry.Relative(issNow, 1, seoul)), "valid one month from now: %v", until)
		var state string
		require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT state FROM assertions WHERE id = $1", orig).Scan(&state))
		require.Equal(t, tc.state, state, "the original stays as it is until the replacement is issued")
	}
	// v2 has no renewal: the route does not exist there.
	orig := f.mustExpiring(t, "manager", "v2@example.com", "RECEIVED", soon)
	require.Equal(t, http.StatusNotFound, f.do(t, http.MethodPost, "/public/v2/assertions/"+orig+"/renew", f.keys["manager"], "").Status)
}

// TestRenew_Idempotency: replays answer the first answer (also after the original changed), another body or
// operation under the key is ISS057, a second renewal (or reissue, or cancel) while one is under way is AST022.
func TestRenew_Idempotency(t *testing.T) {
	f := newIssFixture(t)
	orig := f.mustExpiring(t, "manager", "a@example.com", "RECEIVED", issNow.Add(24*time.Hour))
	path := "/public/v3/assertions/" + orig + "/renew"
	requireError(t, f.postRenew(t, orig, "manager", noIdemKey, ""), path, http.StatusBadRequest, "ISS056", "Idempotency-Key")
	requireError(t, f.postRenew(t, orig, "manager", "k", `{"recipientName":"X"}`), path, http.StatusBadRequest, "COM006", "recipientName")

	first := f.postRenew(t, orig, "manager", "same", "")
	require.Equal(t, http.StatusOK, first.Status, "%s", first.Raw)
	assertions, balance := countRows(t, f.d, "assertions", f.org), credits(t, f.d, f.org)
	for _, body := range []string{"", "{}"} {
		again := f.postRenew(t, orig, "manager", "same", body)
		require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
		require.Equal(t, jget(t, first.Body, "data"), jget(t, again.Body, "data"))
	}
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org), "a replay creates nothing")
	require.Equal(t, balance, credits(t, f.d, f.org), "a replay costs nothing")
	requireError(t, f.postReissue(t, "v3", orig, "manager", "same", ""), "/public/v3/assertions/"+orig+"/reissue", http.StatusConflict, "ISS057")

	requireError(t, f.postRenew(t, orig, "manager", "other", ""), path, http.StatusConflict, "AST022")
	requireError(t, f.postReissue(t, "v3", orig, "manager", "other", ""), "/public/v3/assertions/"+orig+"/reissue", http.StatusConflict, "AST022")
	requireError(t, f.do(t, http.MethodPost, "/public/v3/assertions/"+orig+"/cancel", f.keys["manager"], ""),
		"/public/v3/assertions/"+orig+"/cancel", http.StatusConflict, "AST022")

	// The replacement issued: the original is REISSUED, and the replay still answers the first answer.
	f.setState(t, jstr(t, first.Body, "data.assertionId"), "RECEIVED")
	f.setState(t, orig, "REISSUED")
	again := f.postRenew(t, orig, "manager", "same", "")
	require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
	require.Equal(t, jget(t, first.Body, "data.assertionId"), jget(t, again.Body, "data.assertionId"))
	r := f.postRenew(t, orig, "manager", "third", "")
	requireError(t, r, path, http.StatusConflict, "AST022")
	require.Contains(t, jstr(t, r.Body, "error.message"), "REISSUED")
}

// TestRenew_Concurrent: two renewals of one assertion at once under different keys: exactly one wins, the other is
// AST022; under the same key both answer the one renewal. One credit either way.
func TestRenew_Concurrent(t *testing.T) {
	f := newIssFixture(t)
	for _, sameKey := range []bool{false, true} {
		orig := f.mustExpiring(t, "manager", uuid.NewString()+"@example.com", "RECEIVED", issNow.Add(24*time.Hour))
		balance := credits(t, f.d, f.org)
		const n = 8
		out := make([]response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := "race-" + orig
				if !sameKey {
					key += "-" + string(rune('a'+i))
				}
				out[i] = f.postRenew(t, orig, "manager", key, "")
			}()
		}
		wg.Wait()
		won := map[any]bool{}
		for _, r := range out {
			switch r.Status {
			case http.StatusOK:
				won[jget(t, r.Body, "data.assertionId")] = true
			case http.StatusConflict:
				require.False(t, sameKey, "%s", r.Raw)
				require.Equal(t, "AST022", jstr(t, r.Body, "error.code"))
			default:
				t.Fatalf("unexpected answer %d: %s", r.Status, r.Raw)
			}
		}
		require.Len(t, won, 1, "exactly one replacement (same key %v)", sameKey)
		require.Equal(t, balance-1, credits(t, f.d, f.org))
		var replacements int
		require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM assertions WHERE reissued_from = $1", orig).Scan(&replacements))
		require.Equal(t, 1, replacements)
	}
}

// TestRenew_Refusals: states that cannot be renewed, FIXED policy, credits, roles and the test-mode sandbox.
func TestRenew_Refusals(t *testing.T) {
	f := newIssFixture(t)
	for _, s := range []string{"PROCESSING", "FAILED", "REVOKED", "REISSUED"} {
		id := f.mustExpiring(t, "manager", s+"@example.com", s, issNow.Add(24*time.Hour))
		requireError(t, f.postRenew(t, id, "manager", "k-"+s, ""), "/public/v3/assertions/"+id+"/renew", http.StatusConflict, "AST022")
	}
	ok := f.mustExpiring(t, "manager", "ok@example.com", "RECEIVED", issNow.Add(24*time.Hour))
	path := "/public/v3/assertions/" + ok + "/renew"
	assertions, balance := countRows(t, f.d, "assertions", f.org), credits(t, f.d, f.org)
	requireError(t, f.postRenew(t, ok, "viewer", "k", ""), path, http.StatusForbidden, "ORG004")
	requireError(t, f.postRenew(t, ok, "otherManager", "k", ""), path, http.StatusNotFound, "AST001")
	testKey := mustModeKey(t, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
	requireError(t, f.postRenew(t, ok, testKey, "k", ""), path, http.StatusNotFound, "AST001")
	setCredits(t, f.d, f.org, 0)
	requireError(t, f.postRenew(t, ok, "manager", "k", ""), path, http.StatusPaymentRequired, "PAY054")
	setCredits(t, f.d, f.org, balance)
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org), "a refused renewal writes no assertion")
	// An assertion of a badge whose policy is now FIXED (moved there by hand: FIXED badges issue nothing).
	fixed := f.mustExpiring(t, "manager", "fixed@example.com", "RECEIVED", issNow.Add(24*time.Hour))
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET badge_id = $2 WHERE id = $1", fixed, f.vars["{fixedBadge}"])
	require.NoError(t, err)
	assertions, balance = countRows(t, f.d, "assertions", f.org), credits(t, f.d, f.org)
	requireError(t, f.postRenew(t, fixed, "manager", "k", ""), "/public/v3/assertions/"+fixed+"/renew", http.StatusBadRequest, "BDG064")
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org), "a refused renewal writes nothing")
	require.Equal(t, balance, credits(t, f.d, f.org))

	// A test key renews its own test assertions, for free, with a test credential's bounded validity.
	mine := f.mustExpiring(t, testKey, "test@example.com", "RECEIVED", issNow.Add(24*time.Hour))
	requireError(t, f.postRenew(t, mine, "manager", "k", ""), "/public/v3/assertions/"+mine+"/renew", http.StatusNotFound, "AST001")
	r := f.postRenew(t, mine, testKey, "k", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, balance, credits(t, f.d, f.org), "a test renewal is free")
	var mode string
	var until time.Time
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT mode, expired_at FROM assertions WHERE id = $1",
		jstr(t, r.Body, "data.assertionId")).Scan(&mode, &until))
	require.Equal(t, apikey.ModeTest, mode)
	require.False(t, until.After(issNow.Add(expiry.TestValidity)))
}
