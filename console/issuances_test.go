package console_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/internal/apikey"
)

// TestConsole_Issuances: the list shows live issuances and, apart, test ones (?mode=test), filtered by status;
// an issuance's page counts recipients by state and error code and names each failed one's step; the CSV holds every
// recipient with its result, a formula-looking name defused.
func TestConsole_Issuances(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	iss := f.issuanceOf(t, "=HYPERLINK(\"x\")", "a@example.test")
	_, err := f.DB.Pool.Exec(ctx, "UPDATE assertions SET state = 'FAILED', error_code = 'NTF001', step = 'NOTIFY' WHERE issuance_id = $1", iss)
	require.NoError(t, err)

	// A test-mode issuance, through the API with a test key.
	testKey, _ := apitest.Key(t, f.DB, f.Org, apikey.RoleManager, apikey.ModeTest)
	var badge, program uuid.UUID
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT badge_id, program_id FROM issuances WHERE id = $1", iss).Scan(&badge, &program))
	r := f.Request(t, http.MethodPost, "/public/v3/badges/"+badge.String()+"/issuances", testKey,
		`{"recipients":[{"name":"Test Person","email":"t@example.test","receiveType":"EMAIL"}],"programId":"`+program.String()+`","issuedAt":"2025-02-09T16:30:00Z"}`,
		http.Header{"Idempotency-Key": {uuid.NewString()}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	testIss := apitest.JStr(t, r.Body, "data.id")

	live := f.get(t, viewer, "/console/issuances")
	require.Equal(t, http.StatusOK, live.status)
	require.Contains(t, live.body, iss.String())
	require.NotContains(t, live.body, testIss, "test issuances are not among live ones")
	test := f.get(t, viewer, "/console/issuances?mode=test")
	require.Contains(t, test.body, testIss)
	require.NotContains(t, test.body, iss.String())
	require.NotContains(t, f.get(t, viewer, "/console/issuances?status=FAILED").body, iss.String())
	require.Equal(t, http.StatusBadRequest, f.get(t, viewer, "/console/issuances?status=NOPE").status)
	require.Equal(t, http.StatusBadRequest, f.get(t, viewer, "/console/issuances?from=yesterday").status)
	require.Equal(t, http.StatusBadRequest, f.get(t, viewer, "/console/issuances?after=x").status)

	page := f.get(t, viewer, "/console/issuances/"+iss.String())
	require.Equal(t, http.StatusOK, page.status)
	for _, want := range []string{"FAILED</a>: 1", "NTF001</a>: 1", "NOTIFY"} {
		require.Contains(t, page.body, want)
	}
	require.Contains(t, f.get(t, viewer, "/console/issuances/"+iss.String()+"?errorCode=NTF001").body, "NOTIFY")
	require.NotContains(t, f.get(t, viewer, "/console/issuances/"+iss.String()+"?state=ISSUED").body, "NOTIFY")

	c := f.get(t, viewer, "/console/issuances/"+iss.String()+"/recipients.csv")
	require.Equal(t, http.StatusOK, c.status)
	rows, err := csv.NewReader(strings.NewReader(c.body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, []string{"seq", "assertionId", "name", "email", "phone", "state", "errorCode", "step"}, rows[0])
	require.Equal(t, `'=HYPERLINK("x")`, rows[1][2])
	require.Equal(t, []string{"FAILED", "NTF001", "NOTIFY"}, rows[1][5:])

	credits := f.get(t, viewer, "/console/credits")
	require.Contains(t, credits.body, "/console/issuances/"+iss.String(), "the live issuance's debit")
}

// TestConsole_CancelReissue: a manager cancels an assertion through the API's own operation (REVOKED, audit row);
// cancelling it again is the API's safe retry; a reissue of a revoked one is the API's refusal with its code; a
// viewer may do neither, and another organization's assertion is not found.
func TestConsole_CancelReissue(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a := f.IssueSigned(t, "Park", "park@example.test")
	path := "/console/assertions/" + a.String()
	require.Equal(t, http.StatusForbidden, f.post(t, viewer, path+"/cancel", nil).status)
	require.Equal(t, http.StatusNotFound, f.post(t, other, path+"/cancel", nil).status)
	res := f.post(t, manager, path+"/cancel", nil)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	var state string
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT state FROM assertions WHERE id = $1", a).Scan(&state))
	require.Equal(t, "REVOKED", state)
	rows := f.auditActions(t, f.Org.ID)
	require.Equal(t, "assertion.cancel", rows[0].Action)
	require.Equal(t, a.String(), rows[0].Target)
	require.Equal(t, http.StatusSeeOther, f.post(t, manager, path+"/cancel", nil).status, "the API's safe retry")
	again := f.post(t, manager, path+"/reissue", nil)
	require.GreaterOrEqual(t, again.status, 400)
	require.Contains(t, again.body, "AST0", "the API's error code")
	require.Equal(t, http.StatusNotFound, f.post(t, manager, "/console/assertions/"+a.String()+"/delete", nil).status)
}
