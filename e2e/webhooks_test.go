package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
)

// TestWebhooks_Events: every event type reaches a registered endpoint, signed (the receiver verifies each request),
// with the ids a client needs; a redelivery carries the same webhook-id; the delivery log shows every attempt.
func TestWebhooks_Events(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 100)
	rcv := newReceiver(t)
	endpoint, secret := s.mustWebhook(t, tn.Key, rcv.URL())
	rcv.setSecret(secret)

	// issuance.completed, counted by state.
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "wh-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("wh", 2), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	done := rcv.waitEvent(t, webhook.IssuanceCompleted, "issuanceId", id)
	var data webhook.IssuanceData
	require.NoError(t, json.Unmarshal(done.Data, &data))
	require.Equal(t, tn.Badge, data.BadgeID.String())
	require.Equal(t, "COMPLETED", data.ProcessingStatus)
	require.Equal(t, map[string]int{"RECEIVED": 2}, data.CountsByState)
	require.Empty(t, data.CountsByErrorCode)
	require.Regexp(t, `^evt_[0-9a-f-]{36}$`, done.ID)

	// assertion.revoked (the cancel endpoint) and assertion.expired (the expiry job).
	rows := s.assertionRows(t, id)
	s.postJSON(t, "/public/v3/assertions/"+rows[0].ID.String()+"/cancel", tn.Key, nil, "").data(t)
	revoked := rcv.waitEvent(t, webhook.AssertionRevoked, "assertionId", rows[0].ID.String())
	var ad webhook.AssertionData
	require.NoError(t, json.Unmarshal(revoked.Data, &ad))
	require.Equal(t, webhook.AssertionData{AssertionID: rows[0].ID, IssuanceID: rows[0].IssuanceID, BadgeID: rows[0].BadgeID,
		ProgramID: rows[0].ProgramID, StateCode: "REVOKED", Mode: "live"}, ad)
	_, err := s.DB.Pool.Exec(context.Background(), `UPDATE assertions SET expired_at = now() - interval '1 minute' WHERE id = $1`, rows[1].ID)
	require.NoError(t, err)
	require.EqualValues(t, 1, s.runExpiry(t))
	expired := rcv.waitEvent(t, webhook.AssertionExpired, "assertionId", rows[1].ID.String())
	require.NoError(t, json.Unmarshal(expired.Data, &ad))
	require.Equal(t, "EXPIRED", ad.StateCode)
	require.Equal(t, id, ad.IssuanceID.String())

	// issuance.failed: a run that failed as a whole, closed by the same activity the workflow calls.
	failedID := s.mustStalledIssuance(t, tn)
	require.NoError(t, s.Acts.CompleteIssuance(context.Background(), activities.CompleteIssuanceInput{IssuanceID: failedID, Failure: "batch lost"}))
	failed := rcv.waitEvent(t, webhook.IssuanceFailed, "issuanceId", failedID.String())
	require.NoError(t, json.Unmarshal(failed.Data, &data))
	require.Equal(t, "FAILED", data.ProcessingStatus)
	require.Equal(t, map[string]int{"INTERNAL_SERVER_ERROR": 1}, data.CountsByErrorCode)

	// A change that rolls back records nothing; an organization without endpoints records nothing.
	before := s.count(t, `SELECT count(*) FROM webhook_events`)
	rollback := s.DB.InTx(context.Background(), func(q *db.Queries) error {
		if _, err := webhook.Record(context.Background(), q, webhook.Event{OrgID: tn.Org.ID, Type: webhook.AssertionRevoked,
			Data: webhook.NewAssertionData(rows[0])}); err != nil {
			return err
		}
		return context.Canceled
	})
	require.ErrorIs(t, rollback, context.Canceled)
	other := s.mustTenant(t, 10)
	oid := s.mustIssue(t, "v3", other.Key, other.Badge, "quiet", issuanceBody(t, other.Program, emailRecipients("quiet", 1), ""))
	s.waitIssuance(t, "v3", other.Key, oid, issueTimeout)
	require.Equal(t, before, s.count(t, `SELECT count(*) FROM webhook_events`))

	// Redelivery: a new delivery, the same event id; the log lists both with their attempts.
	var list []map[string]any
	s.waitDeliveries(t, tn.Key, endpoint, 4, "SUCCEEDED")
	list = s.deliveries(t, tn.Key, endpoint)
	var first map[string]any
	for _, d := range list {
		require.Equal(t, "SUCCEEDED", d["status"], "%v", d)
		attempts := d["attempts"].([]any)
		require.NotEmpty(t, attempts)
		require.EqualValues(t, 200, attempts[len(attempts)-1].(map[string]any)["statusCode"])
		if d["eventId"] == done.ID {
			first = d
		}
	}
	require.NotNil(t, first)
	re := s.postJSON(t, "/public/v3/webhooks/deliveries/"+first["id"].(string)+"/redeliver", tn.Key, nil, "").data(t)
	require.Equal(t, done.ID, re["eventId"])
	require.Equal(t, first["id"], re["redeliveryOf"])
	rcv.waitFor(t, "the redelivery", time.Minute, func() bool {
		n := 0
		for _, x := range rcv.requests {
			if x == done.ID {
				n++
			}
		}
		return n == 2
	})
	require.Eventually(t, func() bool { return len(s.deliveries(t, tn.Key, endpoint)) == 5 }, 10*time.Second, 20*time.Millisecond)
}

// mustStalledIssuance records a one-recipient issuance of tn that no workflow runs, left PROCESSING.
func (s *stack) mustStalledIssuance(tb testing.TB, tn tenant) uuid.UUID {
	tb.Helper()
	ctx := context.Background()
	id, badge, program := uuid.New(), uuid.MustParse(tn.Badge), uuid.MustParse(tn.Program)
	_, err := s.DB.CreateIssuance(ctx, db.CreateIssuanceParams{ID: id, OrgID: tn.Org.ID, BadgeID: badge, ProgramID: program,
		ApiVersion: 3, Mode: "live", IdempotencyKey: "stalled-" + id.String(), RequestHash: []byte{1}, IssuedAt: time.Now(),
		AssertionCount: 1, CreditsDebited: 1, WorkflowID: "issuance/stalled/" + id.String()})
	require.NoError(tb, err)
	email := "stalled@example.com"
	_, err = s.DB.InsertAssertions(ctx, []db.InsertAssertionsParams{{ID: uuid.New(), OrgID: tn.Org.ID, IssuanceID: id,
		BadgeID: badge, ProgramID: program, Mode: "live", ApiVersion: 3, Seq: 0, SerialNumber: "S-" + id.String()[:8],
		RecipientName: "Stalled", RecipientEmail: &email, ReceiveType: "EMAIL", IssuedAt: time.Now(), CreatedAt: time.Now()}})
	require.NoError(tb, err)
	return id
}

// TestWebhooks_RetriesUntilReceiverRecovers: a receiver that answers 503 for a while gets every event once it
// is back (retries on the webhook class's short test schedule), and an endpoint that keeps failing is disabled
// after DisableAfterFailures deliveries in a row ran out of attempts, with its reason in the listing.
func TestWebhooks_RetriesUntilReceiverRecovers(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 100)
	flaky, down := newReceiver(t), newReceiver(t)
	flaky.answer = func(n int) int {
		if n <= 10 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	down.answer = func(int) int { return http.StatusInternalServerError }
	flakyID, secret := s.mustWebhook(t, tn.Key, flaky.URL())
	flaky.setSecret(secret)
	downID, secret := s.mustWebhook(t, tn.Key, down.URL(), webhook.AssertionRevoked)
	down.setSecret(secret)

	const n = 5
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "flaky-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("flaky", n), ""))
	s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)
	for _, r := range s.assertionRows(t, id) {
		s.postJSON(t, "/public/v3/assertions/"+r.ID.String()+"/cancel", tn.Key, nil, "").data(t)
	}
	flaky.waitFor(t, "every event", time.Minute, func() bool { return len(flaky.events) == n+1 })
	s.waitDeliveries(t, tn.Key, flakyID, n+1, "SUCCEEDED")
	retried := 0
	for _, d := range s.deliveries(t, tn.Key, flakyID) {
		require.Equal(t, "SUCCEEDED", d["status"])
		attempts := d["attempts"].([]any)
		for _, a := range attempts[:len(attempts)-1] {
			require.EqualValues(t, 503, a.(map[string]any)["statusCode"])
		}
		retried += len(attempts) - 1
	}
	require.Equal(t, 10, retried, "every 503 was an attempt that was retried")

	// The down endpoint: 5 deliveries ran out of attempts (the test class: 40), so it is disabled with its reason.
	var ep map[string]any
	require.Eventually(t, func() bool {
		for _, it := range s.get(t, "/public/v3/webhooks", tn.Key, "").data(t)["items"].([]any) {
			if e := it.(map[string]any); e["id"] == downID && e["disabled"] == true {
				ep = e
				return true
			}
		}
		return false
	}, 2*time.Minute, 50*time.Millisecond)
	require.Contains(t, ep["disabledReason"], "5 deliveries in a row failed")
	for _, d := range s.deliveries(t, tn.Key, downID) {
		require.Equal(t, "FAILED", d["status"])
		require.Len(t, d["attempts"], 40)
	}
	require.Zero(t, s.count(t, `SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING'`))
}

// TestWebhooks_WorkerKilledMidDelivery: the worker is stopped while the receiver holds its request open; a new
// worker delivers the event (at least once: the receiver may have seen the first request, and dedupes by id).
func TestWebhooks_WorkerKilledMidDelivery(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	rcv := newReceiver(t)
	rcv.hold = func(n int) bool { return n == 1 }
	_, secret := s.mustWebhook(t, tn.Key, rcv.URL())
	rcv.setSecret(secret)

	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "kill-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("kill", 1), ""))
	select {
	case <-rcv.held:
	case <-time.After(time.Minute):
		t.Fatal("the first delivery never reached the receiver")
	}
	s.StopWorker()
	w := temporal.NewWorker(s.Client, s.Acts, temporal.WorkerOptions{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ev := rcv.waitEvent(t, webhook.IssuanceCompleted, "issuanceId", id)
	require.GreaterOrEqual(t, rcv.count(ev.ID), 2, "the held request, then the new worker's")
	// The receiver answered before the worker recorded the outcome: wait for the record.
	require.Eventually(t, func() bool {
		return s.count(t, `SELECT count(*) FROM webhook_deliveries WHERE event_id = $1 AND status = 'SUCCEEDED'`, ev.ID) == 1
	}, time.Minute, 20*time.Millisecond)
	require.Equal(t, 1, s.count(t, `SELECT count(*) FROM webhook_deliveries WHERE event_id = $1`, ev.ID), "one delivery, retried")
}

// TestWebhooks_API: the v3 extension's roles, validation, URL policy and organization scoping.
func TestWebhooks_API(t *testing.T) {
	s := newStack(t)
	tn, other := s.mustTenant(t, 10), s.mustTenant(t, 10)
	viewer := s.mustRoleKey(t, tn.Org, apikey.RoleViewer)

	id, _ := s.mustWebhook(t, tn.Key, "https://hooks.example.com/badged", webhook.IssuanceCompleted)
	for _, tc := range []struct {
		name, method, path, key, body string
		status                        int
		code                          string
	}{
		{"viewer cannot list", "GET", "/public/v3/webhooks", viewer, "", 403, "ORG004"},
		{"viewer cannot create", "POST", "/public/v3/webhooks", viewer, `{"url":"https://a.example/"}`, 403, "ORG004"},
		{"no key", "GET", "/public/v3/webhooks", "", "", 401, "SEC065"},
		{"v3 only", "GET", "/public/v2/webhooks", tn.Key, "", 404, "NOT_FOUND"},
		{"unknown event", "POST", "/public/v3/webhooks", tn.Key, `{"url":"https://a.example/","events":["issuance.started"]}`, 400, "COM006"},
		{"url required", "POST", "/public/v3/webhooks", tn.Key, `{"events":[]}`, 400, "COM006"},
		{"not a url", "POST", "/public/v3/webhooks", tn.Key, `{"url":"ftp://a.example/"}`, 400, "COM006"},
		{"unknown field", "POST", "/public/v3/webhooks", tn.Key, `{"url":"https://a.example/","secret":"x"}`, 400, "COM006"},
		{"other org's deliveries", "GET", "/public/v3/webhooks/" + id + "/deliveries", other.Key, "", 404, "WHK001"},
		{"other org's delete", "DELETE", "/public/v3/webhooks/" + id, other.Key, "", 404, "WHK001"},
		{"bad id", "DELETE", "/public/v3/webhooks/nope", tn.Key, "", 400, "COM002"},
		{"unknown delivery", "POST", "/public/v3/webhooks/deliveries/" + uuid.NewString() + "/redeliver", tn.Key, "", 404, "WHK001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.request(t, tc.method, tc.path, tc.key, map[string]string{"Content-Type": "application/json"}, stringsReader(tc.body))
			require.Equal(t, tc.status, res.Status, "%s", res.Raw)
			require.Equal(t, tc.code, res.errorCode())
		})
	}

	list := s.get(t, "/public/v3/webhooks", tn.Key, "").data(t)["items"].([]any)
	require.Len(t, list, 1)
	require.NotContains(t, list[0], "secret", "the secret is shown only at creation")
	require.Equal(t, []any{webhook.IssuanceCompleted}, list[0].(map[string]any)["events"])
	require.Empty(t, s.get(t, "/public/v3/webhooks", other.Key, "").data(t)["items"])
	require.Equal(t, true, s.request(t, "DELETE", "/public/v3/webhooks/"+id, tn.Key, nil, nil).data(t)["deleted"])
	require.Empty(t, s.get(t, "/public/v3/webhooks", tn.Key, "").data(t)["items"])

	// Production's URL policy: https only, public addresses only.
	strict := httptest.NewServer(api.NewHandler(api.Deps{DB: s.DB, PublicBaseURL: "http://localhost", Issuer: s.Issuer,
		WebhookURLs: webhook.URLPolicy{}}))
	t.Cleanup(strict.Close)
	for url, want := range map[string]string{
		"http://hooks.example.com/x":  "must use https",
		"https://127.0.0.1/x":         "private, loopback or link-local",
		"https://10.1.2.3/x":          "private, loopback or link-local",
		"https://[::1]:8443/x":        "private, loopback or link-local",
		"https://169.254.169.254/x":   "private, loopback or link-local",
		"https://localhost/x":         "localhost",
		"https://user:pw@a.example/x": "user info",
	} {
		body, _ := json.Marshal(map[string]string{"url": url})
		req, err := http.NewRequest(http.MethodPost, strict.URL+"/public/v3/webhooks", stringsReader(string(body)))
		require.NoError(t, err)
		req.Header.Set("X-API-KEY", tn.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var e struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.NewDecoder(res.Body).Decode(&e))
		res.Body.Close()
		require.Equal(t, 400, res.StatusCode, url)
		require.Equal(t, "COM006", e.Error.Code, url)
		require.Contains(t, e.Error.Message, want, url)
	}
}

// waitDeliveries waits until the endpoint has want deliveries, all in status (the receiver answers before the
// worker records the outcome).
func (s *stack) waitDeliveries(tb testing.TB, key, endpoint string, want int, status string) {
	tb.Helper()
	require.Eventually(tb, func() bool {
		list := s.deliveries(tb, key, endpoint)
		for _, d := range list {
			if d["status"] != status {
				return false
			}
		}
		return len(list) == want
	}, time.Minute, 20*time.Millisecond)
}
