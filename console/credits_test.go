package console_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"
)

// issueTo issues the badge to n recipients through the API with key and answers the issuance and its
// assertions in seq order (PROCESSING: the console's fixture starts no workflow).
func (f *fixture) issueTo(t *testing.T, key string, n int) (uuid.UUID, []uuid.UUID) {
	t.Helper()
	var rcpts []string
	for i := range n {
		rcpts = append(rcpts, `{"name":"R`+string(rune('a'+i))+`","email":"r`+string(rune('a'+i))+`@example.test","receiveType":"EMAIL"}`)
	}
	r := f.Request(t, http.MethodPost, "/public/v3/badges/"+f.Badge()+"/issuances", key,
		`{"recipients":[`+strings.Join(rcpts, ",")+`],"programId":"`+f.Program()+`","issuedAt":"2025-02-09T16:30:00Z"}`,
		http.Header{"Idempotency-Key": {uuid.NewString()}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	iss := uuid.MustParse(apitest.JStr(t, r.Body, "data.id"))
	rows, err := f.DB.Pool.Query(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1 ORDER BY seq", iss)
	require.NoError(t, err)
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	return iss, ids
}

// creditScenario changes Acme's credits through every real statement that does: a grant (with its audit row, as
// badged admin grants), a live issuance of 4, the refunds of FinishAssertions (a permanent and a retryable failure)
// and of a failed run, a re-drive's debit of the two retryable ones, and a test issuance that takes nothing.
// Acme ends with 100 + 50 - 4 + 2 + 1 - 2 = 147 credits. It answers the live issuance.
func creditScenario(t *testing.T, f *fixture) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	a := &activities.Activities{DB: f.DB, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	actor := audit.AdminActor
	_, err := f.DB.GrantCredits(ctx, db.GrantCreditsParams{ID: f.Org.ID, Amount: 50, Actor: &actor})
	require.NoError(t, err)
	require.NoError(t, audit.Append(ctx, f.DB, audit.Event{Org: f.Org.ID, Actor: actor, Action: audit.CreditsGrant, Detail: "50"}))

	iss, ids := f.issueTo(t, f.Keys["manager"], 4)
	_, err = a.FinishAssertions(ctx, activities.FinishBatch{IssuanceID: iss, Outcomes: []activities.Outcome{
		{AssertionID: ids[0]},
		{AssertionID: ids[1], ErrorCode: "MISSING_INFO", Stage: activities.StepSigned},       // permanent: refunded, stays failed
		{AssertionID: ids[2], ErrorCode: "EMAIL_SERVER_ERROR", Stage: activities.StepSigned}, // retryable
	}})
	require.NoError(t, err)
	// The run fails: the last recipient fails with INTERNAL_SERVER_ERROR and is refunded (FailRemainingAssertions).
	require.NoError(t, a.CompleteIssuance(ctx, activities.CompleteIssuanceInput{IssuanceID: iss, Failure: "worker lost"}))

	policy, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	require.NoError(t, err)
	noStart := func(context.Context, db.Issuance, string, workflows.RedriveInput) error { return nil }
	res, err := temporal.Redrive(ctx, f.DB, policy, noStart, iss)
	require.NoError(t, err)
	require.Equal(t, 2, res.CreditsDebited, "the two retryable failures are debited again")

	testKey, _ := apitest.Key(t, f.DB, f.Org, apikey.RoleManager, apikey.ModeTest)
	f.issueTo(t, testKey, 2)

	return iss
}

// TestConsole_CreditLedger: through the real statements that change credits (a grant, an issuance's debit, the
// refunds of FinishAssertions and of a failed run, a re-drive's debit; a test issuance takes nothing), the ledger
// sums to the balance, each row's balance_after is the running sum, every kind is there, and the credits page
// lists them newest first with the refunds and links to the issuance.
func TestConsole_CreditLedger(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	iss := creditScenario(t, f)

	o, err := f.DB.GetOrganization(ctx, f.Org.ID)
	require.NoError(t, err)
	require.Equal(t, int64(100+50-4+2+1-2), o.Credits)

	rows, err := f.DB.ListCreditLedger(ctx, db.ListCreditLedgerParams{OrgID: f.Org.ID, Limit: 100})
	require.NoError(t, err)
	var sum int64
	kinds := map[string]int64{}
	for i := len(rows) - 1; i >= 0; i-- { // oldest first
		l := rows[i]
		sum += l.Delta
		kinds[l.Kind] += l.Delta
		require.NotNil(t, l.BalanceAfter, "a row written with its change knows the balance after it")
		require.Equal(t, sum, *l.BalanceAfter, "balance_after of row %d (%s) is the running sum", l.ID, l.Kind)
		if l.Kind != "opening" && l.Kind != "grant" {
			require.Equal(t, iss, *l.IssuanceID, "%s belongs to the issuance", l.Kind)
		}
	}
	require.Equal(t, o.Credits, sum, "the ledger sums to the balance")
	require.Equal(t, map[string]int64{"opening": 100, "grant": 50, "issuance": -4, "refund": 3, "redrive": -2}, kinds,
		"every kind, and nothing from the test issuance")
	require.Equal(t, "redrive", rows[0].Kind, "newest first")

	page := f.get(t, viewer, "/console/credits")
	require.Equal(t, http.StatusOK, page.status)
	for _, want := range []string{"<strong>147</strong>", "refund of failed recipients", "<td>&#43;2</td>", "<td>&#43;1</td>",
		"re-drive", "<td>-4</td>", `href="/console/issuances/` + iss.String() + `"`, "badged admin"} {
		require.Contains(t, page.body, want)
	}
	require.Less(t, strings.Index(page.body, "re-drive"), strings.Index(page.body, "refund of failed recipients"),
		"newest first")
	ko := f.do(t, viewer, http.MethodGet, "/console/credits?lang=ko", nil)
	require.Contains(t, ko.body, "실패한 수령자 환불")

	// Keyset: the rows below the newest, then a bad cursor.
	older := f.get(t, viewer, "/console/credits?before="+strconv.FormatInt(rows[0].ID, 10))
	require.NotContains(t, older.body, ">re-drive<")
	require.Contains(t, older.body, "refund of failed recipients")
	require.Equal(t, http.StatusBadRequest, f.get(t, viewer, "/console/credits?before=x").status)
	// Another organization's page shows its own ledger only.
	theirs := f.get(t, other, "/console/credits")
	require.Contains(t, theirs.body, "<strong>100</strong>")
	require.NotContains(t, theirs.body, iss.String())
}
