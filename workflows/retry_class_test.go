package workflows

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/retrypolicy"
)

// flakyAnchorer fails the first failures calls with code, then anchors.
type flakyAnchorer struct {
	mu       sync.Mutex
	code     errcode.Code
	failures int
	calls    int
}

func (f *flakyAnchorer) AnchorBatch(_ context.Context, key string, digests [][32]byte) (chain.Batch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.failures {
		return chain.Batch{}, errcode.New(f.code, "anchor "+key)
	}
	return chain.Batch{Anchor: chain.Anchor{TxHash: "0xfeed", BlockNumber: 7, ChainID: 31337},
		Proofs: make([]chain.Proof, len(digests))}, nil
}

var _ activities.Anchorer = (*flakyAnchorer)(nil)

// TestRetryClassesThroughTheWorkflow runs IssueBatch with the real LoadBatch, AnchorCredentials (and so the real
// step runner and policy file) and FinishAssertions on Postgres, with an anchorer that fails with a code of each
// class: the workflow retries exactly as the class says, after the class's delays, and records the outcome.
func TestRetryClassesThroughTheWorkflow(t *testing.T) {
	policy, err := retrypolicy.Load("../temporal/retry-policy.json")
	require.NoError(t, err)
	f := mustWorkflowFixture(t)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	issuers := issuer.New(f.DB, ring, "https://badges.example")

	classes := make([]string, 0, len(policy.Classes))
	for name := range policy.Classes {
		if name == "webhook" {
			continue // no assertion errorCode: webhook deliveries have their own workflow and tests (e2e/webhooks_test.go)
		}
		classes = append(classes, name)
	}
	sort.Strings(classes)
	for _, class := range classes {
		code := firstCodeOf(t, policy, class)
		cfg := policy.Classes[class]
		type scenario struct {
			name      string
			failures  int
			wantCalls int
			wantState string
			wantCode  string
		}
		var scenarios []scenario
		if !cfg.Retryable {
			scenarios = append(scenarios, scenario{"final at once", 1 << 20, 1, "FAILED", string(code)})
		} else {
			scenarios = append(scenarios, scenario{"recovers", 2, 3, "RECEIVED", ""})
			// Succeeds on the class's last attempt: the longest backoffs, capped by the class.
			last := cfg.MaximumAttempts
			scenarios = append(scenarios, scenario{"recovers late", last - 1, last, "RECEIVED", ""})
			scenarios = append(scenarios, scenario{"exhausted", 1 << 20, cfg.MaximumAttempts, "FAILED", string(code)})
		}
		for _, sc := range scenarios {
			t.Run(class+"/"+string(code)+"/"+sc.name, func(t *testing.T) {
				anchor := &flakyAnchorer{code: code, failures: sc.failures}
				// The anchor step appends live credentials to their organization's issuance log and signs its
				// checkpoint with the organization's key: a real issuer.
				acts := &activities.Activities{DB: f.DB, Anchor: anchor, Policy: policy, Location: time.UTC, Issuer: issuers,
					Log: slog.New(slog.NewTextHandler(io.Discard, nil)), AnchorWait: time.Millisecond}
				iss, id := f.mustSignedAssertion(t)
				creditsBefore := f.credits(t)

				var s testsuite.WorkflowTestSuite
				s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
				env := s.NewTestWorkflowEnvironment()
				env.RegisterActivity(acts)
				for _, step := range []any{acts.CheckRecipients, acts.SignCredentials, acts.BakeBadges, acts.PublishCredentials, acts.NotifyRecipients} {
					env.OnActivity(step, mock.Anything, mock.Anything).Return(activities.StepResult{}, nil).Maybe()
				}
				start := env.Now()
				env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: iss, FromSeq: 0, ToSeq: 1})
				require.True(t, env.IsWorkflowCompleted())
				require.NoError(t, env.GetWorkflowError())
				var res BatchResult
				require.NoError(t, env.GetWorkflowResult(&res))

				require.Equal(t, sc.wantCalls, anchor.calls, "anchor attempts")
				env.AssertNumberOfCalls(t, "CheckRecipients", 0) // resumed after SIGNED
				env.AssertNumberOfCalls(t, "SignCredentials", 0)
				var wantDelay time.Duration
				for attempt := 1; attempt < sc.wantCalls; attempt++ {
					retry, d := policy.Decide(code, attempt)
					require.True(t, retry)
					wantDelay += d
				}
				elapsed := env.Now().Sub(start)
				require.GreaterOrEqual(t, elapsed, wantDelay, "the class's delays are honoured")
				require.Less(t, elapsed, wantDelay+time.Second)

				as, err := f.DB.GetAssertionByID(context.Background(), id)
				require.NoError(t, err)
				require.Equal(t, sc.wantState, as.State)
				got := ""
				if as.ErrorCode != nil {
					got = *as.ErrorCode
				}
				require.Equal(t, sc.wantCode, got)
				require.Equal(t, 1, res.Finished)
				if sc.wantState == "FAILED" {
					require.Equal(t, map[string]int{sc.wantCode: 1}, res.FailedByCode)
					require.Equal(t, activities.StepSigned, as.Step)
					require.Equal(t, creditsBefore+1, f.credits(t), "a failed live recipient is refunded")
				} else {
					require.Empty(t, res.FailedByCode)
					require.Equal(t, activities.StepAnchored, as.Step)
					require.Equal(t, "0xfeed", *as.AnchorTxHash)
					require.Equal(t, creditsBefore, f.credits(t))
				}
			})
		}
	}
}

func firstCodeOf(t *testing.T, p *retrypolicy.Policy, class string) errcode.Code {
	t.Helper()
	for _, c := range errcode.All {
		if p.ClassOf(c) == class {
			return c
		}
	}
	t.Fatalf("no code of class %s", class)
	return ""
}

// workflowFixture is one organization and badge on a fresh database.
type workflowFixture struct {
	DB                      *db.DB
	org, badge, program, im uuid.UUID
}

func mustWorkflowFixture(tb testing.TB) *workflowFixture {
	tb.Helper()
	ctx := context.Background()
	f := &workflowFixture{DB: dbtest.New(tb), org: uuid.New(), badge: uuid.New(), program: uuid.New(), im: uuid.New()}
	_, err := f.DB.CreateOrganization(ctx, db.CreateOrganizationParams{ID: f.org, Name: "Org", Credits: 100})
	require.NoError(tb, err)
	_, err = f.DB.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: f.im, OrgID: f.org, ContentType: "image/png", Ext: "png", Width: 1, Height: 1, SizeBytes: 1})
	require.NoError(tb, err)
	_, err = f.DB.CreateProgram(ctx, db.CreateProgramParams{ID: f.program, OrgID: f.org, Name: "P", CategoryCode: "ETC", ImageID: f.im})
	require.NoError(tb, err)
	_, err = f.DB.CreateBadge(ctx, db.CreateBadgeParams{ID: f.badge, OrgID: f.org, Name: "B", Description: "d",
		Criteria: json.RawMessage(`[]`), CategoryCode: "ETC", ImageID: f.im, Skills: json.RawMessage(`[]`)})
	require.NoError(tb, err)
	return f
}

// mustSignedAssertion inserts a live v3 issuance of one recipient whose credential is signed (step SIGNED).
func (f *workflowFixture) mustSignedAssertion(tb testing.TB) (issuance, assertion uuid.UUID) {
	tb.Helper()
	ctx := context.Background()
	issuance, assertion = uuid.New(), uuid.New()
	now := time.Now().UTC()
	_, err := f.DB.CreateIssuance(ctx, db.CreateIssuanceParams{ID: issuance, OrgID: f.org, BadgeID: f.badge,
		ProgramID: f.program, ApiVersion: 3, Mode: "live", IdempotencyKey: issuance.String(), RequestHash: []byte{1},
		IssuedAt: now, AssertionCount: 1, CreditsDebited: 1, WorkflowID: "wf"})
	require.NoError(tb, err)
	email := assertion.String() + "@example.com"
	_, err = f.DB.InsertAssertions(ctx, []db.InsertAssertionsParams{{ID: assertion, OrgID: f.org, IssuanceID: issuance,
		BadgeID: f.badge, ProgramID: f.program, Mode: "live", ApiVersion: 3, Seq: 0, SerialNumber: assertion.String(),
		RecipientName: "R", RecipientEmail: &email, ReceiveType: "EMAIL", IssuedAt: now, CreatedAt: now}})
	require.NoError(tb, err)
	// No query moves a step past CHECKED without its artifacts; setup only.
	_, err = f.DB.Pool.Exec(ctx, `UPDATE assertions SET step = 'SIGNED', credential_sha256 = '\x01' WHERE id = $1`, assertion)
	require.NoError(tb, err)
	return issuance, assertion
}

func (f *workflowFixture) credits(tb testing.TB) int64 {
	tb.Helper()
	org, err := f.DB.GetOrganization(context.Background(), f.org)
	require.NoError(tb, err)
	return org.Credits
}
