package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/console"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/membership"
	"github.com/badged/badged/internal/waitfor"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/wire"
)

// cookieSignIn stands where the mail-link sign-in stands (TestConsole_Browser drives that one): the cookie
// "e2e_session" names the person, whose CSRF token is "csrf-" + address.
type cookieSignIn struct{}

func (cookieSignIn) Current(r *http.Request) (console.Session, bool) {
	c, err := r.Cookie("e2e_session")
	if err != nil || c.Value == "" {
		return console.Session{}, false
	}
	return console.Session{Email: c.Value, CSRF: "csrf-" + c.Value}, true
}

func (cookieSignIn) Invite(context.Context, *http.Request, string) error { return nil }
func (cookieSignIn) Mount(chi.Router)                                    {}

// TestConsole_RedriveTemporal: the console's re-drive on the real Temporal server and worker. The chain is down, so
// an issuance's recipients fail with BLOCKCHAIN_RPC_FAILED (retryable) and are refunded. A viewer's POST is
// refused; with credits short a manager's is refused with the reason (409); then a manager's starts the re-drive (the worker is stopped, so the run stays in flight) and debits once (one ledger row); a
// second POST while it runs starts nothing new and debits nothing. With the chain and a worker back, the
// recipients end RECEIVED.
func TestConsole_RedriveTemporal(t *testing.T) {
	chainDir := t.TempDir() // the chain restarts on its blocks
	s := newStack(t, stackOptions{chainDir: chainDir})
	ctx := context.Background()
	tn := s.mustTenant(t, 10)
	for who, role := range map[string]string{"manager@acme.test": "ORG_MANAGER", "viewer@acme.test": "ORG_VIEWER"} {
		_, _, err := membership.Add(ctx, s.DB, tn.Org.ID, who, role, audit.Event{Actor: audit.AdminActor})
		require.NoError(t, err)
	}
	// The console on the stack's API, its re-drive wired as `badged serve` wires it (cmd/badged/signin.go).
	deps := s.APIDeps
	deps.Console = cookieSignIn{}
	r := temporal.Redriver{DB: s.DB, Policy: testPolicy(t), Client: s.Client,
		Start: temporal.Starter{Client: s.Client, DB: s.DB, BaseURL: s.BaseURL}.StartRedrive}
	deps.ConsoleRedrive = wire.ConsoleRedrive(r)
	srv := httptest.NewServer(api.NewHandler(deps))
	t.Cleanup(srv.Close)
	// postPage posts the form as who and answers the status and the page.
	postPage := func(who, path string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(url.Values{"csrf": {"csrf-" + who}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: "e2e_session", Value: who})
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		_ = res.Body.Close()
		return res.StatusCode, string(body)
	}
	post := func(who, path string) int {
		t.Helper()
		code, _ := postPage(who, path)
		return code
	}

	chainAddr := strings.TrimPrefix(s.Chain.URL(), "http://")
	require.NoError(t, s.Chain.Close())
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "redrive-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("redrive", 2), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	for _, a := range s.assertionRows(t, id) {
		require.Equal(t, "FAILED", a.State)
		require.Equal(t, "BLOCKCHAIN_RPC_FAILED", deref(a.ErrorCode))
	}
	require.Equal(t, int64(10), s.credits(t, tn.Org.ID), "the failed recipients were refunded")

	path := "/console/issuances/" + id + "/redrive"
	require.Equal(t, http.StatusForbidden, post("viewer@acme.test", path))
	require.Zero(t, s.count(t, "SELECT count(*) FROM issuance_redrive_runs"), "a viewer starts nothing")

	// The stack's issuance workflows have no redrive window: once closed, the re-drive is a workflow of its own.
	wid := s.workflowIDOf(t, id)
	waitfor.True(t, issueTimeout, 20*time.Millisecond, "the issuance workflow closed", func() bool {
		d, err := s.Client.DescribeWorkflowExecution(ctx, wid, "")
		return err == nil && d.WorkflowExecutionInfo.CloseTime != nil
	})
	// Credits short: refused with the reason on the page (409), nothing reset, recorded or debited.
	_, err := s.DB.Pool.Exec(ctx, "UPDATE organizations SET credits = 1 WHERE id = $1", tn.Org.ID)
	require.NoError(t, err)
	code, page := postPage("manager@acme.test", path)
	require.Equal(t, http.StatusConflict, code, page)
	require.Contains(t, page, "fewer than the 2 credits the re-drive needs")
	require.Zero(t, s.count(t, "SELECT count(*) FROM issuance_redrive_runs"))
	require.Equal(t, 2, s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'FAILED'", uuid.MustParse(id)))
	_, err = s.DB.Pool.Exec(ctx, "UPDATE organizations SET credits = 10 WHERE id = $1", tn.Org.ID) // as before
	require.NoError(t, err)

	s.StopWorker() // the run stays in flight until a worker comes back
	require.Equal(t, http.StatusSeeOther, post("manager@acme.test", path))
	require.Equal(t, int64(8), s.credits(t, tn.Org.ID), "the re-drive debits its two live recipients")
	require.Equal(t, http.StatusSeeOther, post("manager@acme.test", path), "a second POST while the run is in flight")
	require.Equal(t, int64(8), s.credits(t, tn.Org.ID), "and debits nothing again")
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM issuance_redrive_runs"))
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM credit_ledger WHERE kind = 'redrive' AND issuance_id = $1", uuid.MustParse(id)))
	require.Equal(t, 2, s.count(t, "SELECT count(*) FROM audit_events WHERE action = $1", audit.IssuanceRedrive))

	s.startChain(t, chainAddr, chainDir)
	w := temporal.NewWorker(s.Client, s.Acts, temporal.WorkerOptions{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	waitfor.True(t, issueTimeout, 50*time.Millisecond, "the re-driven recipients are received", func() bool {
		return s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", uuid.MustParse(id)) == 2
	})
	require.Equal(t, int64(8), s.credits(t, tn.Org.ID))
	var ledger int64
	require.NoError(t, s.DB.Pool.QueryRow(ctx, "SELECT sum(delta) FROM credit_ledger WHERE org_id = $1", tn.Org.ID).Scan(&ledger))
	require.Equal(t, int64(8), ledger, "the ledger sums to the balance")
}
