package e2e

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"
)

// The replay test (temporal/replay_test.go) replays the histories TestWorkflowHistories records with -record:
//
//	make record-histories                   # = go test -run '^TestWorkflowHistories$' ./e2e/ -record -record.set=<UTC date>
var (
	recordHistories = flag.Bool("record", false,
		"TestWorkflowHistories writes the histories it records into "+historiesDir+"/<record.set>")
	recordSet = flag.String("record.set", time.Now().UTC().Format("2006-01-02"),
		"the directory under "+historiesDir+" that -record writes (a new one when a workflow shape changes)")
)

// historiesDir holds the recorded sets, relative to this package.
const historiesDir = "../temporal/testdata/histories"

// TestWorkflowHistories runs every released workflow shape for real on the embedded stack, through the branches
// a change is most likely to break, and records each run's history: an issuance whose mail group is retried after
// its class's delay and then delivered, next to a duplicate (a final failure at the check) and a KakaoTalk
// recipient; a rejected mail (a notification failure, credential issued); a chain outage that fails a batch after
// its class's retries, and the re-drive of it by the issuance workflow's redrive Update once the chain is back; a chunked issuance of three batches; a
// webhook delivery retried until the receiver answers; the expiry job. Each history must replay on the workflows
// as the worker registers them. With -record they are written to historiesDir/<record.set>, for the replay test;
// without it, to a temporary directory, so the scenarios and the recorder stay working.
func TestWorkflowHistories(t *testing.T) {
	dir := t.TempDir()
	if *recordHistories {
		dir = filepath.Join(historiesDir, *recordSet)
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	top, chainDir := t, t.TempDir()
	// Issuances with retryable failures wait for their redrive Update, as REDRIVE_WINDOW's default has them do.
	s := newStack(t, stackOptions{chainDir: chainDir, redriveWindow: time.Hour})
	tn := s.mustTenant(t, 5000)
	rec := &historyRecorder{s: s, dir: dir}
	issue := func(t *testing.T, prefix string, rs []recipientJSON) (string, []db.Assertion) {
		t.Helper()
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, prefix+"-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		return id, s.assertionRows(t, id)
	}

	var retried string // the issuance of the first scenario; the expiry job expires one of its credentials
	t.Run("mail group retried after its class delay", func(t *testing.T) {
		s.SMTP.SetFault(smtptest.StageData, smtptest.Fault{Code: 451, Message: "try again later"})
		defer s.SMTP.ClearFaults()
		rs := emailRecipients("retry", 3)
		rs = append(rs, recipientJSON{Name: "카카오", PhoneNumber: ptr("010-1111-2222"), ReceiveType: "KAKAOTALK"}, rs[0])
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "retry-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
		// Deliver once the first attempt failed: the mail group then waits for its retry.
		s.waitSendFailed(t, id)
		s.SMTP.ClearFaults()
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		rows := s.assertionRows(t, id)
		require.Equal(t, []string{"RECEIVED", "RECEIVED", "RECEIVED", "RECEIVED", "FAILED"}, states(rows))
		require.Equal(t, "DUPLICATE_ISSUANCE", deref(rows[4].ErrorCode))

		parent := rec.record(t, "issue_badge-retry", s.workflowIDOf(t, id))
		children := childIDs(parent)
		require.Len(t, children, 1)
		batch := rec.record(t, "issue_batch-retry", children[0])
		require.NotZero(t, count(batch, enums.EVENT_TYPE_TIMER_STARTED), "the mail group waited for its retry")
		require.GreaterOrEqual(t, len(scheduled(batch, "NotifyRecipients")), 2, "notify ran again for the group")
		retried = id
	})

	t.Run("notification failure", func(t *testing.T) {
		s.SMTP.SetFault(smtptest.StageRcpt, smtptest.Fault{Code: 550, Message: "no such mailbox"})
		defer s.SMTP.ClearFaults()
		id, rows := issue(t, "rejected", emailRecipients("rejected", 2))
		require.Equal(t, []string{"ISSUED", "ISSUED"}, states(rows))
		require.Equal(t, "REJECTED_EMAIL", deref(rows[0].ErrorCode))
		children := childIDs(rec.events(t, s.workflowIDOf(t, id)))
		rec.record(t, "issue_batch-mail-rejected", children[0])
	})

	t.Run("chain outage, then re-drive by Update", func(t *testing.T) {
		addr := strings.TrimPrefix(s.Chain.URL(), "http://")
		require.NoError(t, s.Chain.Close())
		id, rows := issue(t, "outage", emailRecipients("outage", 2))
		require.Equal(t, []string{"FAILED", "FAILED"}, states(rows))
		require.Equal(t, "BLOCKCHAIN_RPC_FAILED", deref(rows[0].ErrorCode))
		wfID := s.workflowIDOf(t, id)
		// The issuance workflow waits for its re-drive (awaiting-redrive); its batch has completed.
		batch := rec.record(t, "issue_batch-chain-failed", wfID+"/batch-00000")
		require.NotZero(t, count(batch, enums.EVENT_TYPE_TIMER_STARTED), "the chain class retried the group")

		s.startChain(top, addr, chainDir) // back with every block it had, until the test ends
		res, err := temporal.Redriver{DB: s.DB, Policy: testPolicy(t), Client: s.Client}.Redrive(context.Background(), uuid.MustParse(id))
		require.NoError(t, err)
		require.Equal(t, workflows.RedriveWorkflowID(wfID, 1), res.WorkflowID)
		parent := rec.record(t, "issue_badge-redrive-update", wfID)
		require.Equal(t, 1, count(parent, enums.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED), "one redrive Update")
		require.Equal(t, []string{"RECEIVED", "RECEIVED"}, states(s.assertionRows(t, id)))
		redrive := rec.record(t, "redrive_issuance", res.WorkflowID)
		require.Len(t, scheduled(redrive, "AnchorCredentials"), 1, "resumed at the anchor")
	})

	t.Run("chunked issuance of three batches", func(t *testing.T) {
		n := 2*workflows.BatchSize + 1
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "chunked-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("chunked", n), ""))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, 10*time.Minute)["processingStatus"])
		require.Equal(t, n, s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", uuid.MustParse(id)))
		parent := rec.record(t, "issue_badge-chunked", s.workflowIDOf(t, id))
		children := childIDs(parent)
		require.Len(t, children, 3)
		for i, child := range children {
			batch := rec.record(t, "issue_batch-chunked-"+string(rune('0'+i)), child)
			if i < 2 {
				require.Len(t, scheduled(batch, "NotifyRecipients"), workflows.BatchSize/workflows.ChunkSize, "one notify per chunk")
			}
		}
	})

	t.Run("webhook delivery retried", func(t *testing.T) {
		rcv := newReceiver(t)
		rcv.answer = func(n int) int {
			if n <= 2 {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		}
		endpoint, secret := s.mustWebhook(t, tn.Key, rcv.URL(), webhook.IssuanceCompleted)
		rcv.setSecret(secret)
		id, _ := issue(t, "hooked", emailRecipients("hooked", 1))
		rcv.waitEvent(t, webhook.IssuanceCompleted, "issuanceId", id)
		var delivery uuid.UUID
		require.NoError(t, s.DB.Pool.QueryRow(context.Background(),
			"SELECT id FROM webhook_deliveries WHERE endpoint_id = $1", uuid.MustParse(endpoint)).Scan(&delivery))
		h := rec.record(t, "deliver_webhook-retried", workflows.WebhookWorkflowID(delivery))
		var attempt int32
		for _, e := range h {
			if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
				attempt = a.GetAttempt()
			}
		}
		require.EqualValues(t, 3, attempt, "two 503s, then delivered")
	})

	t.Run("webhook delivery refused by the URL policy", func(t *testing.T) {
		// A URL the policy refuses under any setting (a fragment), stored as an endpoint created before the rule
		// would be: the delivery is refused before any request, FAILED at once (webhook-refused-is-final).
		ctx := context.Background()
		endpoint := uuid.New()
		_, err := s.DB.Pool.Exec(ctx, `INSERT INTO webhook_endpoints (id, org_id, url, secret, events)
			VALUES ($1, $2, $3, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '{issuance.completed}')`,
			endpoint, tn.Org.ID, newReceiver(t).URL()+"#refused")
		require.NoError(t, err)
		issue(t, "refused", emailRecipients("refused", 1))
		var delivery uuid.UUID
		require.Eventually(t, func() bool {
			return s.DB.Pool.QueryRow(ctx, "SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'FAILED'",
				endpoint).Scan(&delivery) == nil
		}, time.Minute, 20*time.Millisecond)
		wfID := workflows.WebhookWorkflowID(delivery)
		require.Eventually(t, func() bool {
			desc, err := s.Client.DescribeWorkflowExecution(ctx, wfID, "")
			return err == nil && desc.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		}, time.Minute, 20*time.Millisecond)
		h := rec.record(t, "deliver_webhook-refused", wfID)
		failed, marked := 0, 0
		for _, e := range h {
			if f := e.GetActivityTaskFailedEventAttributes(); f != nil {
				failed++
				require.True(t, f.GetFailure().GetApplicationFailureInfo().GetNonRetryable())
				require.Equal(t, activities.ErrTypeWebhookRefused, f.GetFailure().GetApplicationFailureInfo().GetType())
			}
			if e.GetMarkerRecordedEventAttributes() != nil {
				marked++
			}
		}
		require.Equal(t, 1, failed, "one attempt, refused, not retried")
		require.Equal(t, 1, marked, "the version marker of webhook-refused-is-final")
	})

	t.Run("expiry job", func(t *testing.T) {
		ctx := context.Background()
		_, err := s.DB.Pool.Exec(ctx, `UPDATE assertions SET expired_at = now() - interval '1 second'
			WHERE id = (SELECT id FROM assertions WHERE issuance_id = $1 ORDER BY seq LIMIT 1)`, uuid.MustParse(retried))
		require.NoError(t, err)
		id := "histories-expire-" + uuid.NewString()
		run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue},
			workflows.ExpireAssertions)
		require.NoError(t, err)
		var n int64
		require.NoError(t, run.Get(ctx, &n))
		require.EqualValues(t, 1, n)
		rec.record(t, "expire_assertions", id)
	})

	t.Run("expiry reminders", func(t *testing.T) {
		ctx := context.Background()
		// The badge gets a 7-day policy through the API; one credential of the first scenario expires in 2 days.
		res := s.request(t, http.MethodPatch, "/public/v3/badges/"+tn.Badge, tn.Key,
			map[string]string{"Content-Type": "application/json"}, strings.NewReader(`{"expiryReminders":[7]}`))
		require.Equal(t, http.StatusOK, res.Status, "%s", res.Raw)
		_, err := s.DB.Pool.Exec(ctx, `UPDATE assertions SET expired_at = now() + interval '2 days'
			WHERE id = (SELECT id FROM assertions WHERE issuance_id = $1 AND state IN ('ISSUED', 'RECEIVED')
			            ORDER BY seq LIMIT 1)`, uuid.MustParse(retried))
		require.NoError(t, err)
		id := "histories-remind-" + uuid.NewString()
		run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue},
			workflows.RemindExpiring, workflows.RemindInput{Every: time.Second, Rounds: 2})
		require.NoError(t, err)
		var p workflows.RemindProgress
		require.NoError(t, run.Get(ctx, &p))
		require.Equal(t, activities.ReminderResult{Claimed: 1, Sent: 1}, p.Total)
		rec.record(t, "remind_expiring", id)
	})

	// Every history recorded replays on the workflows the worker registers, as the replay test will replay it.
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.ElementsMatch(t, rec.written, files)
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	types := map[string]bool{}
	for _, file := range files {
		h, err := temporal.ReadHistory(file)
		require.NoError(t, err)
		require.NoError(t, temporal.ReplayHistory(h, quiet), file)
		types[h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()] = true
	}
	for _, wf := range temporal.Workflows() {
		require.True(t, types[wf.Name], "no history of %s recorded", wf.Name)
	}
	if *recordHistories {
		t.Logf("recorded %d histories into %s", len(files), dir)
	}
}

// historyRecorder fetches the histories of finished workflows and writes them as JSON files, in the form
// `temporal workflow show --output json` prints and the SDK's replayer reads.
type historyRecorder struct {
	s       *stack
	dir     string
	written []string
}

// events waits until workflow id has completed and returns its history.
func (r *historyRecorder) events(tb testing.TB, id string) []*historypb.HistoryEvent {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(tb, r.s.Client.GetWorkflow(ctx, id, "").Get(ctx, nil), "workflow %s", id)
	var evs []*historypb.HistoryEvent
	it := r.s.Client.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(tb, err)
		evs = append(evs, e)
	}
	require.Equal(tb, enums.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, evs[len(evs)-1].GetEventType(), "workflow %s", id)
	return evs
}

// record writes the history of workflow id as <name>.json and returns its events.
func (r *historyRecorder) record(tb testing.TB, name, id string) []*historypb.HistoryEvent {
	tb.Helper()
	evs := r.events(tb, id)
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: evs})
	require.NoError(tb, err)
	file := filepath.Join(r.dir, name+".json")
	require.NoError(tb, os.WriteFile(file, append(data, '\n'), 0o644))
	r.written = append(r.written, file)
	return evs
}

// workflowIDOf is the workflow id recorded for an issuance.
func (s *stack) workflowIDOf(tb testing.TB, issuance string) string {
	tb.Helper()
	var id string
	require.NoError(tb, s.DB.Pool.QueryRow(context.Background(), "SELECT workflow_id FROM issuances WHERE id = $1",
		uuid.MustParse(issuance)).Scan(&id))
	return id
}

// childIDs are the workflow ids of the children a history started, in order.
func childIDs(evs []*historypb.HistoryEvent) []string {
	var out []string
	for _, e := range evs {
		if a := e.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			out = append(out, a.GetWorkflowExecution().GetWorkflowId())
		}
	}
	slices.Sort(out)
	return out
}

// scheduled are the ActivityTaskScheduled events of activity type name.
func scheduled(evs []*historypb.HistoryEvent, name string) []*historypb.HistoryEvent {
	var out []*historypb.HistoryEvent
	for _, e := range evs {
		if e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == name {
			out = append(out, e)
		}
	}
	return out
}

func count(evs []*historypb.HistoryEvent, typ enums.EventType) int {
	n := 0
	for _, e := range evs {
		if e.GetEventType() == typ {
			n++
		}
	}
	return n
}

func states(rows []db.Assertion) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.State
	}
	return out
}
