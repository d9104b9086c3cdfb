package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/notice"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"
)

// opFixture is one issuance with recipients in chosen states on a fresh database.
type opFixture struct {
	DB       *db.DB
	OrgID    uuid.UUID
	Issuance db.Issuance
	IDs      []uuid.UUID // by seq
}

// opRecipient is the state a fixture recipient is put in.
type opRecipient struct {
	State, Step, ErrorCode string
	Published              bool // credential_key set
	Mode                   string
}

func mustOpFixture(t *testing.T, apiVersion int16, mode string, recipients []opRecipient) *opFixture {
	t.Helper()
	ctx := context.Background()
	d := dbtest.New(t)
	f := &opFixture{DB: d, OrgID: uuid.New()}
	image, program, badge := uuid.New(), uuid.New(), uuid.New()
	_, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: f.OrgID, Name: "Badged Academy", Credits: 10})
	require.NoError(t, err)
	_, err = d.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: image, OrgID: f.OrgID, ContentType: "image/png",
		Ext: "png", Width: 1, Height: 1, SizeBytes: 4})
	require.NoError(t, err)
	_, err = d.CreateProgram(ctx, db.CreateProgramParams{ID: program, OrgID: f.OrgID, Name: "Program",
		CategoryCode: "ETC", ImageID: image})
	require.NoError(t, err)
	_, err = d.CreateBadge(ctx, db.CreateBadgeParams{ID: badge, OrgID: f.OrgID, Name: "Go Expert",
		Description: "Writes Go", Criteria: json.RawMessage(`[{"category":"ETC","value":"Write Go"}]`),
		CategoryCode: "ETC", ImageID: image, Skills: json.RawMessage(`[]`)})
	require.NoError(t, err)
	issID := uuid.New()
	f.Issuance, err = d.CreateIssuance(ctx, db.CreateIssuanceParams{ID: issID, OrgID: f.OrgID, BadgeID: badge,
		ProgramID: program, ApiVersion: apiVersion, Mode: mode, IdempotencyKey: "k1", RequestHash: []byte{1},
		IssuedAt: time.Now(), AssertionCount: int32(len(recipients)), CreditsDebited: int32(len(recipients)),
		WorkflowID: "issuance/" + issID.String()})
	require.NoError(t, err)
	rows := make([]db.InsertAssertionsParams, len(recipients))
	for i := range recipients {
		email := fmt.Sprintf("r%d@example.com", i)
		f.IDs = append(f.IDs, uuid.New())
		rows[i] = db.InsertAssertionsParams{ID: f.IDs[i], OrgID: f.OrgID, IssuanceID: issID, BadgeID: badge,
			ProgramID: program, Mode: mode, ApiVersion: apiVersion, Seq: int32(i), SerialNumber: fmt.Sprint(i + 1),
			RecipientName: fmt.Sprintf("Recipient %d", i), RecipientEmail: &email, ReceiveType: "EMAIL",
			IssuedAt: time.Now(), CreatedAt: time.Now()}
	}
	_, err = d.InsertAssertions(ctx, rows)
	require.NoError(t, err)
	for i, r := range recipients {
		var code, key *string
		if r.ErrorCode != "" {
			code = &r.ErrorCode
		}
		if r.Published {
			k := "credentials/" + f.IDs[i].String() + ".json"
			key = &k
		}
		_, err := d.Pool.Exec(ctx, `UPDATE assertions SET state = $2, step = $3, error_code = $4, credential_key = $5 WHERE id = $1`,
			f.IDs[i], r.State, r.Step, code, key)
		require.NoError(t, err)
	}
	return f
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestInspectIssuance(t *testing.T) {
	ctx := context.Background()
	f := mustOpFixture(t, 3, "live", []opRecipient{
		{State: "RECEIVED", Step: "NOTIFIED", Published: true},
		{State: "FAILED", Step: "CHECKED", ErrorCode: "BLOCKCHAIN_RPC_FAILED"},
		{State: "FAILED", Step: "PENDING", ErrorCode: "DUPLICATE_ISSUANCE"},
		{State: "ISSUED", Step: "UPLOADED", ErrorCode: "EMAIL_SERVER_ERROR", Published: true},
		{State: "PROCESSING", Step: "SIGNED"},
		{State: "PROCESSING", Step: "SIGNED"},
		{State: "PROCESSING", Step: "BAKED"},
	})
	msg := "connection refused"
	require.NoError(t, f.DB.CreateNotification(ctx, db.CreateNotificationParams{AssertionID: f.IDs[3], MessageID: "m3", Channel: "EMAIL"}))
	require.NoError(t, f.DB.MarkNotificationFailed(ctx, db.MarkNotificationFailedParams{AssertionID: f.IDs[3], LastError: &msg}))
	require.NoError(t, f.DB.CreateNotification(ctx, db.CreateNotificationParams{AssertionID: f.IDs[0], MessageID: "m0", Channel: "EMAIL"}))
	require.NoError(t, f.DB.MarkNotificationSent(ctx, f.IDs[0]))

	cfg := config.Config{TemporalUIURL: "http://ui.example:8233/", TemporalNamespace: "badged prod"}
	out, err := inspectIssuance(ctx, f.DB, cfg, noTemporal, f.Issuance.ID.String())
	require.NoError(t, err)
	require.Equal(t, f.Issuance.ID.String(), out.Issuance.ID)
	require.Equal(t, "PROCESSING", out.Issuance.Status)
	require.Equal(t, "live", out.Issuance.Mode)
	require.Equal(t, 7, out.Issuance.AssertionCount)
	require.Equal(t, f.Issuance.WorkflowID, out.WorkflowID)
	require.Equal(t, "http://ui.example:8233/namespaces/badged%20prod/workflows/issuance%2F"+f.Issuance.ID.String(), out.TemporalUIURL)
	require.Equal(t, workflowOut{Status: "UNKNOWN", Error: noTemporal.err.Error(),
		Note: "Temporal did not answer; the counts below are the database's"}, out.Workflow)
	require.Equal(t, map[string]int64{"RECEIVED": 1, "FAILED": 2, "ISSUED": 1, "PROCESSING": 3}, out.ByState)
	require.Equal(t, map[string]int64{"SIGNED": 2, "BAKED": 1}, out.ByStep)
	require.EqualValues(t, 3, out.FailuresTotal)
	require.Equal(t, []failureOut{
		{AssertionID: f.IDs[1].String(), Seq: 1, State: "FAILED", Step: "CHECKED", Stage: "SIGNED", ErrorCode: "BLOCKCHAIN_RPC_FAILED", RecipientName: "Recipient 1"},
		{AssertionID: f.IDs[2].String(), Seq: 2, State: "FAILED", Step: "PENDING", Stage: "CHECKED", ErrorCode: "DUPLICATE_ISSUANCE", RecipientName: "Recipient 2"},
		{AssertionID: f.IDs[3].String(), Seq: 3, State: "ISSUED", Step: "UPLOADED", Stage: "NOTIFIED", ErrorCode: "EMAIL_SERVER_ERROR", RecipientName: "Recipient 3"},
	}, out.Failures)
	require.EqualValues(t, 1, out.UnsentNotesTotal)
	require.Len(t, out.UnsentNotes, 1)
	require.Equal(t, f.IDs[3].String(), out.UnsentNotes[0].AssertionID)
	require.Equal(t, msg, out.UnsentNotes[0].LastError)
	require.False(t, out.UnsentNotes[0].Resent)

	_, err = inspectIssuance(ctx, f.DB, cfg, noTemporal, uuid.NewString())
	require.ErrorContains(t, err, "no issuance")
	_, err = inspectIssuance(ctx, f.DB, cfg, noTemporal, "nope")
	require.ErrorContains(t, err, "must be an issuance id")
}

func TestInspectIssuanceCapsFailures(t *testing.T) {
	recipients := make([]opRecipient, inspectListCap+5)
	for i := range recipients {
		recipients[i] = opRecipient{State: "FAILED", Step: "PENDING", ErrorCode: "INTERNAL_SERVER_ERROR"}
	}
	f := mustOpFixture(t, 3, "live", recipients)
	out, err := inspectIssuance(context.Background(), f.DB, config.Config{TemporalUIURL: "http://ui"}, noTemporal, f.Issuance.ID.String())
	require.NoError(t, err)
	require.Len(t, out.Failures, inspectListCap)
	require.EqualValues(t, inspectListCap+5, out.FailuresTotal)
	require.Equal(t, "http://ui/namespaces/default/workflows/issuance%2F"+f.Issuance.ID.String(), out.TemporalUIURL)
}

func newTestResender(t *testing.T, d *db.DB) (notice.Resender, string) {
	t.Helper()
	dir := t.TempDir()
	outbox, err := notify.NewOutbox(dir, "badged <no-reply@badged.example>")
	require.NoError(t, err)
	return notice.Resender{DB: d, Notifier: &notify.Notifier{Email: outbox, Kakao: outbox}, Outbox: outbox,
		Domain: "badged.example", BaseURL: "https://badged.example", Log: quietLogger()}, dir
}

func outboxFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		if filepath.Base(f)[0] != '.' {
			out = append(out, filepath.Base(f))
		}
	}
	return out
}

func TestResendNotificationIdempotent(t *testing.T) {
	ctx := context.Background()
	f := mustOpFixture(t, 3, "live", []opRecipient{
		{State: "ISSUED", Step: "UPLOADED", ErrorCode: "EMAIL_SERVER_ERROR", Published: true},
		{State: "RECEIVED", Step: "NOTIFIED", Published: true},
	})
	r, dir := newTestResender(t, f.DB)

	out, err := r.Resend(ctx, f.IDs[0].String(), "TICKET-42")
	require.NoError(t, err)
	require.True(t, out.Sent)
	require.Equal(t, 1, out.Attempts)
	require.Equal(t, f.IDs[0].String()+"-resend-TICKET-42.badge@badged.example", out.MessageID)
	// The delivered resend settles the failed notification: v3 becomes RECEIVED without an error code.
	require.Equal(t, "RECEIVED", out.State)
	require.Empty(t, out.ErrorCode)
	require.Len(t, outboxFiles(t, dir), 1)
	data, err := os.ReadFile(filepath.Join(dir, outboxFiles(t, dir)[0]))
	require.NoError(t, err)
	require.Contains(t, string(data), "<"+out.MessageID+">") // the Message-ID header (folded)

	// Repeated (and concurrent) invocations of the same request send nothing more.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			again, err := r.Resend(ctx, f.IDs[0].String(), "TICKET-42")
			if err == nil && again.Sent {
				err = fmt.Errorf("request sent twice")
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, outboxFiles(t, dir), 1)

	// A new request is a new message.
	out2, err := r.Resend(ctx, f.IDs[0].String(), "TICKET-43")
	require.NoError(t, err)
	require.True(t, out2.Sent)
	require.NotEqual(t, out.MessageID, out2.MessageID)
	require.Len(t, outboxFiles(t, dir), 2)

	// A RECEIVED assertion keeps its state.
	out3, err := r.Resend(ctx, f.IDs[1].String(), "TICKET-42")
	require.NoError(t, err)
	require.True(t, out3.Sent)
	require.Equal(t, "RECEIVED", out3.State)
}

func TestResendNotificationV2KeepsIssued(t *testing.T) {
	f := mustOpFixture(t, 2, "live", []opRecipient{
		{State: "ISSUED", Step: "UPLOADED", ErrorCode: "EMAIL_SERVER_ERROR", Published: true},
	})
	r, _ := newTestResender(t, f.DB)
	out, err := r.Resend(context.Background(), f.IDs[0].String(), "T1")
	require.NoError(t, err)
	require.Equal(t, "ISSUED", out.State)
	require.Empty(t, out.ErrorCode)
}

func TestResendNotificationFailureIsRetried(t *testing.T) {
	ctx := context.Background()
	f := mustOpFixture(t, 3, "live", []opRecipient{
		{State: "ISSUED", Step: "UPLOADED", ErrorCode: "EMAIL_SERVER_ERROR", Published: true},
	})
	r, dir := newTestResender(t, f.DB)
	good := r.Notifier
	r.Notifier = &notify.Notifier{} // no sender: NOTIFICATION_CHANNEL_UNSUPPORTED
	_, err := r.Resend(ctx, f.IDs[0].String(), "T1")
	require.ErrorContains(t, err, "NOTIFICATION_CHANNEL_UNSUPPORTED")
	rec, err := f.DB.LockNotificationResend(ctx, db.LockNotificationResendParams{AssertionID: f.IDs[0], RequestID: "T1"})
	require.NoError(t, err)
	require.Equal(t, "FAILED", rec.Status)
	require.NotNil(t, rec.LastError)
	cur, err := f.DB.GetAssertionOutcome(ctx, f.IDs[0])
	require.NoError(t, err)
	require.Equal(t, "ISSUED", cur.State)

	r.Notifier = good
	out, err := r.Resend(ctx, f.IDs[0].String(), "T1")
	require.NoError(t, err)
	require.True(t, out.Sent)
	require.Equal(t, 2, out.Attempts)
	require.Len(t, outboxFiles(t, dir), 1)
}

func TestResendNotificationRefused(t *testing.T) {
	f := mustOpFixture(t, 3, "live", []opRecipient{
		{State: "FAILED", Step: "CHECKED", ErrorCode: "BLOCKCHAIN_RPC_FAILED"},
		{State: "PROCESSING", Step: "UPLOADED", Published: true},
		{State: "ISSUED", Step: "NOTIFIED"}, // no credential key
	})
	r, dir := newTestResender(t, f.DB)
	tests := []struct {
		name, assertion, request, want string
	}{
		{"failed", f.IDs[0].String(), "T", "without a published credential"},
		{"processing", f.IDs[1].String(), "T", "without a published credential"},
		{"unpublished", f.IDs[2].String(), "T", "without a published credential"},
		{"no request", f.IDs[0].String(), " ", "--request is required"},
		{"long request", f.IDs[0].String(), strings.Repeat("x", notice.MaxResendRequestLen+1), "at most"},
		{"bad id", "x", "T", "must be an assertion id"},
		{"unknown", uuid.NewString(), "T", "no assertion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Resend(context.Background(), tc.assertion, tc.request)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.Empty(t, outboxFiles(t, dir))
}

// fakeStarter records workflow starts; err makes the next start fail.
type fakeStarter struct {
	ids []string
	ins []workflows.RedriveInput
	err error
}

func (s *fakeStarter) start(_ context.Context, _ db.Issuance, id string, in workflows.RedriveInput) error {
	if s.err != nil {
		err := s.err
		s.err = nil
		return err
	}
	s.ids = append(s.ids, id)
	s.ins = append(s.ins, in)
	return nil
}

func orgCredits(t *testing.T, f *opFixture) int64 {
	t.Helper()
	o, err := f.DB.GetOrganization(context.Background(), f.OrgID)
	require.NoError(t, err)
	return o.Credits
}

func assertionState(t *testing.T, f *opFixture, i int) (state, step, code string) {
	t.Helper()
	a, err := f.DB.GetAssertionByID(context.Background(), f.IDs[i])
	require.NoError(t, err)
	return a.State, a.Step, strOrEmpty(a.ErrorCode)
}

func TestRedriveIssuance(t *testing.T) {
	ctx := context.Background()
	policy, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	require.NoError(t, err)
	f := mustOpFixture(t, 3, "live", []opRecipient{
		{State: "FAILED", Step: "CHECKED", ErrorCode: "BLOCKCHAIN_RPC_FAILED"},
		{State: "FAILED", Step: "PENDING", ErrorCode: "DUPLICATE_ISSUANCE"},
		{State: "FAILED", Step: "BAKED", ErrorCode: "INTERNAL_SERVER_ERROR"},
		{State: "RECEIVED", Step: "NOTIFIED", Published: true},
	})
	cfg := config.Config{TemporalUIURL: "http://ui", TemporalNamespace: "default"}
	s := &fakeStarter{}

	// The issuance's own workflow still runs: refused.
	_, err = redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.ErrorContains(t, err, "still processing")
	_, err = f.DB.SetIssuanceStatus(ctx, db.SetIssuanceStatusParams{ID: f.Issuance.ID, ProcessingStatus: "COMPLETED"})
	require.NoError(t, err)

	// Not enough credits: refused, nothing changes.
	_, err = f.DB.Pool.Exec(ctx, "UPDATE organizations SET credits = 1 WHERE id = $1", f.OrgID)
	require.NoError(t, err)
	_, err = redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.ErrorContains(t, err, "fewer than the 2 credits")
	st, _, code := assertionState(t, f, 0)
	require.Equal(t, "FAILED", st)
	require.Equal(t, "BLOCKCHAIN_RPC_FAILED", code)
	require.Empty(t, s.ids)
	_, err = f.DB.Pool.Exec(ctx, "UPDATE organizations SET credits = 10 WHERE id = $1", f.OrgID)
	require.NoError(t, err)

	// The first re-drive takes the retryable failures, keeps their steps and debits their credits.
	out, err := redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.NoError(t, err)
	wantID := f.Issuance.WorkflowID + "/redrive-1"
	require.True(t, out.Created)
	require.True(t, out.Started)
	require.Equal(t, 1, out.Run)
	require.Equal(t, wantID, out.WorkflowID)
	require.Equal(t, "http://ui/namespaces/default/workflows/"+url.PathEscape(wantID), out.TemporalUIURL)
	require.Equal(t, []string{f.IDs[0].String(), f.IDs[2].String()}, out.AssertionIDs)
	require.Equal(t, map[string]int{"DUPLICATE_ISSUANCE": 1}, out.SkippedByCode)
	require.Equal(t, 2, out.CreditsDebited)
	require.EqualValues(t, 8, orgCredits(t, f))
	for i, wantStep := range map[int]string{0: "CHECKED", 2: "BAKED"} {
		st, step, code := assertionState(t, f, i)
		require.Equal(t, []string{"PROCESSING", wantStep, ""}, []string{st, step, code})
	}
	st, _, _ = assertionState(t, f, 1)
	require.Equal(t, "FAILED", st)
	require.Equal(t, []string{wantID}, s.ids)
	require.Equal(t, workflows.RedriveInput{IssuanceID: f.Issuance.ID, AssertionIDs: []uuid.UUID{f.IDs[0], f.IDs[2]}}, s.ins[0])

	// Again while the run is unfinished: the same run and workflow id, no new debit.
	again, err := redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.NoError(t, err)
	require.False(t, again.Created)
	require.Equal(t, wantID, again.WorkflowID)
	require.Equal(t, []string{wantID, wantID}, s.ids)
	require.EqualValues(t, 8, orgCredits(t, f))

	// The run ends: one recipient fails again (refunded by FinishAssertion in real life), one is issued.
	_, err = f.DB.Pool.Exec(ctx, "UPDATE assertions SET state = 'FAILED', error_code = 'EMAIL_SERVER_ERROR' WHERE id = $1", f.IDs[0])
	require.NoError(t, err)
	_, err = f.DB.Pool.Exec(ctx, "UPDATE assertions SET state = 'RECEIVED', step = 'NOTIFIED' WHERE id = $1", f.IDs[2])
	require.NoError(t, err)
	// A failed start is reported; the next invocation starts the same run.
	s.err = fmt.Errorf("temporal unavailable")
	_, err = redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.ErrorContains(t, err, "run the command again")
	third, err := redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.NoError(t, err)
	require.False(t, third.Created)
	require.Equal(t, 2, third.Run)
	require.Equal(t, []string{f.IDs[0].String()}, third.AssertionIDs)
	require.EqualValues(t, 7, orgCredits(t, f))

	// Nothing retryable left once it ends: nothing is started.
	_, err = f.DB.Pool.Exec(ctx, "UPDATE assertions SET state = 'RECEIVED', step = 'NOTIFIED' WHERE id = $1", f.IDs[0])
	require.NoError(t, err)
	none, err := redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, f.Issuance.ID.String())
	require.NoError(t, err)
	require.Zero(t, none.Run)
	require.False(t, none.Started)
	require.Len(t, s.ids, 3)

	_, err = redriveIssuance(ctx, cfg, temporal.Redriver{DB: f.DB, Policy: policy, Start: s.start}, uuid.NewString())
	require.ErrorContains(t, err, "no issuance")
}
