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
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/retrypolicy"
)

func mustPolicy(tb testing.TB) *retrypolicy.Policy {
	tb.Helper()
	// The file itself, not a copy: package temporal imports this one, so it cannot be imported here.
	p, err := retrypolicy.Load("../temporal/retry-policy.json")
	require.NoError(tb, err)
	return p
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The ids of the steps runFailing runs.
var (
	testAssertion = uuid.MustParse("0b8f6f5e-9d55-4a57-9a57-2f6f0f7d1a01")
	testOther     = uuid.MustParse("0b8f6f5e-9d55-4a57-9a57-2f6f0f7d1a03")
	testIssuance  = uuid.MustParse("7c1e0c2a-3b7e-4c57-8e2d-5d0b1c9f4a02")
)

// runFailing runs the real step runner inside an activity, at the given step attempt, on a chunk of two
// recipients where run decides the outcome, and returns the result as the workflow decodes it.
func runFailing(t *testing.T, a *Activities, attempt int, run stepFunc) (StepResult, error) {
	t.Helper()
	if a.Log == nil {
		a.Log = quietLog()
	}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quietLog()))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(func(ctx context.Context, in StepBatch) (StepResult, error) {
		return a.runStep(ctx, "test", in, run)
	}, activity.RegisterOptions{Name: "testStep"})
	val, err := env.ExecuteActivity("testStep", StepBatch{IssuanceID: testIssuance,
		Assertions: []uuid.UUID{testAssertion, testOther}, Attempt: attempt})
	if err != nil {
		return StepResult{}, err
	}
	var res StepResult
	require.NoError(t, val.Get(&res))
	return res, nil
}

// failOne fails testAssertion with err and lets testOther pass.
func failOne(err error) stepFunc {
	return func(context.Context, []uuid.UUID) (failures, error) { return failures{testAssertion: err}, nil }
}

func onlyFailure(t *testing.T, res StepResult) StepFailure {
	t.Helper()
	require.Len(t, res.Failed, 1, "only the failing recipient is reported: %+v", res.Failed)
	require.Equal(t, testAssertion, res.Failed[0].AssertionID)
	return res.Failed[0]
}

// A failed step's log line names what an operator searches by: the assertion, the issuance, the workflow and run,
// the attempt, the step and the errorCode.
func TestRunStep_LogCarriesIDs(t *testing.T) {
	var buf bytes.Buffer
	a := &Activities{Policy: mustPolicy(t), Log: slog.New(slog.NewJSONHandler(&buf, nil))}
	_, err := runFailing(t, a, 2, failOne(errcode.New(errcode.CredentialSigningFailed, "hsm unavailable")))
	require.NoError(t, err)
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line), buf.String())
	require.Equal(t, "step failed", line["msg"])
	require.Equal(t, testAssertion.String(), line["assertionId"])
	require.Equal(t, testIssuance.String(), line["issuanceId"])
	require.NotEmpty(t, line["workflowId"])
	require.NotEmpty(t, line["runId"])
	require.EqualValues(t, 2, line["stepAttempt"])
	require.Equal(t, "test", line["step"])
	require.Equal(t, "CREDENTIAL_SIGNING_FAILED", line["errorCode"])
}

// TestRunStepEveryCode checks, for every assertion errorCode, that the workflow gets the code and the policy's
// decision: attempt 1 follows Decide, the attempt before the last is retried after the capped backoff, and the
// class's last attempt is final.
func TestRunStepEveryCode(t *testing.T) {
	p := mustPolicy(t)
	a := &Activities{Policy: p}
	for _, code := range errcode.All {
		class := p.Classes[p.ClassOf(code)]
		t.Run(string(code), func(t *testing.T) {
			stepErr := errcode.New(code, "step failed")
			res, err := runFailing(t, a, 1, failOne(stepErr))
			require.NoError(t, err)
			f := onlyFailure(t, res)
			want := code
			if code == errcode.Unknown {
				// errcode.Of cannot tell an explicit UNKNOWN from no code; both are reported as INTERNAL_SERVER_ERROR,
				// and UNKNOWN stays what the workflow writes for failures that are not ours.
				want = errcode.InternalServerError
			}
			require.Equal(t, string(want), f.Code)
			retry, delay := p.Decide(want, 1)
			require.Equal(t, class.Retryable, f.Retry, "class %s", p.ClassOf(code))
			require.Equal(t, retry, f.Retry)
			require.Equal(t, delay, f.Delay)
			if !class.Retryable {
				require.Zero(t, f.Delay)
				return
			}
			require.Equal(t, class.InitialInterval, retrypolicy.Duration(f.Delay))

			res, err = runFailing(t, a, class.MaximumAttempts-1, failOne(stepErr))
			require.NoError(t, err)
			before := onlyFailure(t, res)
			_, wantDelay := p.Decide(want, class.MaximumAttempts-1)
			require.True(t, before.Retry)
			require.Equal(t, wantDelay, before.Delay)
			require.LessOrEqual(t, before.Delay, time.Duration(class.MaximumInterval))

			res, err = runFailing(t, a, class.MaximumAttempts, failOne(stepErr))
			require.NoError(t, err)
			last := onlyFailure(t, res)
			require.Equal(t, string(want), last.Code)
			require.False(t, last.Retry, "attempt %d of %d must be final", class.MaximumAttempts, class.MaximumAttempts)
			require.Zero(t, last.Delay)
		})
	}
}

// TestRunStepClasses pins the delays of each class of the default policy file, so an edit of the file shows up.
func TestRunStepClasses(t *testing.T) {
	a := &Activities{Policy: mustPolicy(t)}
	cases := []struct {
		code    errcode.Code
		attempt int
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
			res, err := runFailing(t, a, c.attempt, failOne(errcode.New(c.code, "x")))
			require.NoError(t, err)
			f := onlyFailure(t, res)
			require.Equal(t, string(c.code), f.Code)
			require.Equal(t, c.retry, f.Retry)
			require.Equal(t, c.delay, f.Delay)
		})
	}
}

func TestRunStepWithoutCodeIsInternal(t *testing.T) {
	a := &Activities{Policy: mustPolicy(t)}
	for name, stepErr := range map[string]error{
		"plain":   errors.New("disk on fire"),
		"wrapped": fmt.Errorf("load assertion: %w", context.DeadlineExceeded),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := runFailing(t, a, 1, failOne(stepErr))
			require.NoError(t, err)
			f := onlyFailure(t, res)
			require.Equal(t, string(errcode.InternalServerError), f.Code)
			require.True(t, f.Retry)
			require.Equal(t, time.Second, f.Delay)
		})
	}
	// The code wrapped deeper in the chain is the one used.
	res, err := runFailing(t, a, 1, failOne(fmt.Errorf("anchor: %w", errcode.New(errcode.BlockchainTxReverted, "reverted"))))
	require.NoError(t, err)
	f := onlyFailure(t, res)
	require.Equal(t, string(errcode.BlockchainTxReverted), f.Code)
	require.False(t, f.Retry)
}

// A failed HTTP call to another system without a code of its own is EXTERNAL_SERVER_ERROR, retried as "remote".
func TestRunStepUncodedHTTPIsExternal(t *testing.T) {
	stepErr := fmt.Errorf("fetch: %w", &url.Error{Op: "Get", URL: "https://provider.example", Err: errors.New("connection refused")})
	res, err := runFailing(t, &Activities{Policy: mustPolicy(t)}, 1, failOne(stepErr))
	require.NoError(t, err)
	f := onlyFailure(t, res)
	require.Equal(t, string(errcode.ExternalServerError), f.Code)
	require.True(t, f.Retry)
	require.Equal(t, 5*time.Second, f.Delay)
}

// An error for the whole chunk (it could not be read or recorded) fails every recipient with its code.
func TestRunStepChunkError(t *testing.T) {
	res, err := runFailing(t, &Activities{Policy: mustPolicy(t)}, 1, func(context.Context, []uuid.UUID) (failures, error) {
		return nil, errcode.Wrap(errcode.ArtifactPersistenceFailed, "record", errors.New("connection reset"))
	})
	require.NoError(t, err)
	require.Len(t, res.Failed, 2)
	for _, f := range res.Failed {
		require.Equal(t, string(errcode.ArtifactPersistenceFailed), f.Code)
		require.True(t, f.Retry)
	}
}

// A step whose context ended (a worker stopping, a timeout) fails the activity itself, so Temporal runs it again;
// no recipient is given a code for it.
func TestRunStepCancelledFailsTheActivity(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a := &Activities{Policy: mustPolicy(t), Log: quietLog()}
	res, err := a.runStep(ctx, "test", StepBatch{Assertions: []uuid.UUID{testAssertion}, Attempt: 1},
		func(context.Context, []uuid.UUID) (failures, error) {
			cancel() // the worker stops while the step runs
			return failures{testAssertion: errors.New("interrupted")}, nil
		})
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, res.Failed)
}

func TestRunStepAllPass(t *testing.T) {
	res, err := runFailing(t, &Activities{Policy: mustPolicy(t)}, 1, func(context.Context, []uuid.UUID) (failures, error) {
		return failures{}, nil
	})
	require.NoError(t, err)
	require.Empty(t, res.Failed)
}
