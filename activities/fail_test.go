package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/retrypolicy"
)

// attemptInterceptor makes activity.GetInfo report a chosen attempt: the test activity environment always runs
// attempt 1, and fail's decision depends on the attempt.
type attemptInterceptor struct {
	interceptor.WorkerInterceptorBase
	attempt int32
}

func (w *attemptInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &attemptInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, attempt: w.attempt}
}

type attemptInbound struct {
	interceptor.ActivityInboundInterceptorBase
	attempt int32
}

func (i *attemptInbound) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	return i.Next.Init(&attemptOutbound{ActivityOutboundInterceptorBase: interceptor.ActivityOutboundInterceptorBase{Next: outbound}, attempt: i.attempt})
}

type attemptOutbound struct {
	interceptor.ActivityOutboundInterceptorBase
	attempt int32
}

func (o *attemptOutbound) GetInfo(ctx context.Context) activity.Info {
	info := o.Next.GetInfo(ctx)
	info.Attempt = o.attempt
	return info
}

func mustPolicy(tb testing.TB) *retrypolicy.Policy {
	tb.Helper()
	// The file itself, not a copy: package temporal imports this one, so it cannot be imported here.
	p, err := retrypolicy.Load("../temporal/retry-policy.json")
	require.NoError(tb, err)
	return p
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The ids of the step runFail runs.
var (
	testAssertion = uuid.MustParse("0b8f6f5e-9d55-4a57-9a57-2f6f0f7d1a01")
	testIssuance  = uuid.MustParse("7c1e0c2a-3b7e-4c57-8e2d-5d0b1c9f4a02")
)

// A failed step's log line names what an operator searches by: the assertion, the issuance, the workflow and run,
// the attempt, the step and the errorCode.
func TestFail_LogCarriesIDs(t *testing.T) {
	var buf bytes.Buffer
	a := &Activities{Policy: mustPolicy(t), Log: slog.New(slog.NewJSONHandler(&buf, nil))}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quietLog()))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		return a.fail(ctx, "sign", StepInput{AssertionID: testAssertion, IssuanceID: testIssuance},
			errcode.New(errcode.CredentialSigningFailed, "hsm unavailable"))
	}, activity.RegisterOptions{Name: "signStep"})
	_, err := env.ExecuteActivity("signStep")
	require.Error(t, err)
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line), buf.String())
	require.Equal(t, "step failed", line["msg"])
	require.Equal(t, testAssertion.String(), line["assertionId"])
	require.Equal(t, testIssuance.String(), line["issuanceId"])
	require.NotEmpty(t, line["workflowId"])
	require.NotEmpty(t, line["runId"])
	require.EqualValues(t, 1, line["attempt"])
	require.Equal(t, "sign", line["step"])
	require.Equal(t, "CREDENTIAL_SIGNING_FAILED", line["errorCode"])
}

// runFail runs the real fail wrapper inside an activity at the given attempt and returns what the activity
// returned as the workflow would decode it.
func runFail(t *testing.T, p *retrypolicy.Policy, attempt int32, stepErr error) error {
	t.Helper()
	a := &Activities{Policy: p, Log: quietLog()}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quietLog()))
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&attemptInterceptor{attempt: attempt}}})
	var sawAttempt int32
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		sawAttempt = activity.GetInfo(ctx).Attempt
		return a.fail(ctx, "test", StepInput{AssertionID: testAssertion, IssuanceID: testIssuance}, stepErr)
	}, activity.RegisterOptions{Name: "failStep"})
	_, err := env.ExecuteActivity("failStep")
	require.Equal(t, attempt, sawAttempt, "interceptor did not set the attempt")
	return err
}

func asAppError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %T: %v", err, err)
	return appErr
}

// TestFailEveryCode checks, for every assertion errorCode, that the workflow sees an ApplicationError typed by the
// code whose retry decision is the policy's: attempt 1 follows Decide, and the class's last attempt is final.
func TestFailEveryCode(t *testing.T) {
	p := mustPolicy(t)
	for _, code := range errcode.All {
		class := p.Classes[p.ClassOf(code)]
		t.Run(string(code), func(t *testing.T) {
			stepErr := errcode.New(code, "step failed")
			appErr := asAppError(t, runFail(t, p, 1, stepErr))
			want := code
			if code == errcode.Unknown {
				// errcode.Of cannot tell an explicit UNKNOWN from no code; both are reported as INTERNAL_SERVER_ERROR,
				// and UNKNOWN stays what the workflow writes for failures that are not ours.
				want = errcode.InternalServerError
			}
			require.Equal(t, string(want), appErr.Type())
			require.Contains(t, appErr.Error(), "step failed")
			retry, delay := p.Decide(code, 1)
			require.Equal(t, !class.Retryable, appErr.NonRetryable(), "class %s", p.ClassOf(code))
			require.Equal(t, !retry, appErr.NonRetryable())
			require.Equal(t, delay, appErr.NextRetryDelay())
			if !class.Retryable {
				require.Zero(t, appErr.NextRetryDelay())
				return
			}
			require.Equal(t, class.InitialInterval, retrypolicy.Duration(appErr.NextRetryDelay()))

			// The attempt before the last is still retried, after the capped backoff.
			before := asAppError(t, runFail(t, p, int32(class.MaximumAttempts-1), stepErr))
			_, wantDelay := p.Decide(code, class.MaximumAttempts-1)
			require.False(t, before.NonRetryable())
			require.Equal(t, wantDelay, before.NextRetryDelay())
			require.LessOrEqual(t, before.NextRetryDelay(), time.Duration(class.MaximumInterval))

			last := asAppError(t, runFail(t, p, int32(class.MaximumAttempts), stepErr))
			require.Equal(t, string(want), last.Type())
			require.True(t, last.NonRetryable(), "attempt %d of %d must be final", class.MaximumAttempts, class.MaximumAttempts)
			require.Zero(t, last.NextRetryDelay())
		})
	}
}

// TestFailClasses pins the delays of each class of the default policy file, so an edit of the file shows up here.
func TestFailClasses(t *testing.T) {
	p := mustPolicy(t)
	cases := []struct {
		code    errcode.Code
		attempt int32
		retry   bool
		delay   time.Duration
	}{
		{errcode.DuplicateIssuance, 1, false, 0},                        // permanent
		{errcode.InternalServerError, 1, true, time.Second},             // internal
		{errcode.InternalServerError, 4, true, 8 * time.Second},         // internal
		{errcode.InternalServerError, 5, false, 0},                      // internal, maximumAttempts 5
		{errcode.ArtifactUploadFailed, 7, true, 2 * time.Minute},        // transient, capped
		{errcode.ArtifactUploadFailed, 8, false, 0},                     // transient, maximumAttempts 8
		{errcode.EmailServerError, 3, true, 20 * time.Second},           // remote
		{errcode.EmailServerError, 10, false, 0},                        // remote, maximumAttempts 10
		{errcode.BlockchainRPCFailed, 3, true, 6750 * time.Millisecond}, // chain
		{errcode.BlockchainRPCFailed, 19, true, time.Minute},            // chain, capped
		{errcode.BlockchainRPCFailed, 20, false, 0},                     // chain, maximumAttempts 20
		{errcode.IssuanceLockTimeout, 2, true, 1500 * time.Millisecond}, // lock
		{errcode.IssuanceLockLost, 10, false, 0},                        // lock, maximumAttempts 10
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.code, c.attempt), func(t *testing.T) {
			appErr := asAppError(t, runFail(t, p, c.attempt, errcode.New(c.code, "x")))
			require.Equal(t, string(c.code), appErr.Type())
			require.Equal(t, !c.retry, appErr.NonRetryable())
			require.Equal(t, c.delay, appErr.NextRetryDelay())
		})
	}
}

func TestFailWithoutCodeIsInternal(t *testing.T) {
	p := mustPolicy(t)
	for name, stepErr := range map[string]error{
		"plain":   errors.New("disk on fire"),
		"wrapped": fmt.Errorf("load assertion: %w", context.DeadlineExceeded),
	} {
		t.Run(name, func(t *testing.T) {
			appErr := asAppError(t, runFail(t, p, 1, stepErr))
			require.Equal(t, string(errcode.InternalServerError), appErr.Type())
			require.False(t, appErr.NonRetryable())
			require.Equal(t, time.Second, appErr.NextRetryDelay())
			require.Contains(t, appErr.Error(), stepErr.Error())
		})
	}
	// The code wrapped deeper in the chain is the one used.
	appErr := asAppError(t, runFail(t, p, 1, fmt.Errorf("anchor: %w", errcode.New(errcode.BlockchainTxReverted, "reverted"))))
	require.Equal(t, string(errcode.BlockchainTxReverted), appErr.Type())
	require.True(t, appErr.NonRetryable())
}

// A failed HTTP call to another system without a code of its own is EXTERNAL_SERVER_ERROR, retried as "remote".
func TestFailUncodedHTTPIsExternal(t *testing.T) {
	p := mustPolicy(t)
	stepErr := fmt.Errorf("fetch: %w", &url.Error{Op: "Get", URL: "https://provider.example", Err: errors.New("connection refused")})
	appErr := asAppError(t, runFail(t, p, 1, stepErr))
	require.Equal(t, string(errcode.ExternalServerError), appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Equal(t, 5*time.Second, appErr.NextRetryDelay())
}

func TestFailNil(t *testing.T) {
	require.NoError(t, runFail(t, mustPolicy(t), 1, nil))
}
