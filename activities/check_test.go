package activities

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/internal/errcode"
)

// runCheck runs CheckRecipients on one chunk in the test activity environment, so its result is what the
// workflow sees.
func (f *fixture) runCheck(t *testing.T, ids ...uuid.UUID) StepResult {
	t.Helper()
	return f.runStepActivity(t, f.acts.CheckRecipients, ids...)
}

// runStepActivity runs a step activity on one chunk at attempt 1 in the test activity environment.
func (f *fixture) runStepActivity(t *testing.T, step any, ids ...uuid.UUID) StepResult {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quietLog()))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(f.acts)
	val, err := env.ExecuteActivity(step, StepBatch{IssuanceID: uuid.New(), Assertions: ids, Attempt: 1})
	require.NoError(t, err)
	var res StepResult
	require.NoError(t, val.Get(&res))
	return res
}

// requireCode requires the recipient id to have failed with code, retryable or not.
func requireCode(t *testing.T, res StepResult, id uuid.UUID, code errcode.Code, retry bool) {
	t.Helper()
	for _, f := range res.Failed {
		if f.AssertionID == id {
			require.Equal(t, string(code), f.Code)
			require.Equal(t, retry, f.Retry)
			return
		}
	}
	t.Fatalf("recipient %s did not fail (want %s); failures: %+v", id, code, res.Failed)
}

// requirePassed requires the step to have reported no failure for id.
func requirePassed(t *testing.T, res StepResult, id uuid.UUID) {
	t.Helper()
	for _, f := range res.Failed {
		require.NotEqual(t, id, f.AssertionID, "recipient failed with %s", f.Code)
	}
}

func TestCheckRecipients(t *testing.T) {
	f := mustFixture(t)
	past := time.Now().Add(-time.Hour)
	taken := "holder@example.com"
	// Assertions of earlier issuances that a new one may collide with.
	f.mustIssuance(t, "live", 3, recipient{Email: &taken, State: "RECEIVED"})
	f.mustIssuance(t, "live", 3, recipient{Email: ptr("expired@example.com"), State: "ISSUED", ExpiredAt: &past})
	f.mustIssuance(t, "live", 3, recipient{Email: ptr("revoked@example.com"), State: "REVOKED"})
	f.mustIssuance(t, "test", 3, recipient{Email: ptr("testmode@example.com"), State: "ISSUED"})
	f.mustIssuance(t, "live", 3, recipient{Phone: ptr("01000000001"), ReceiveType: "KAKAOTALK", Step: StepSigned})

	cases := []struct {
		name string
		r    recipient
		want errcode.Code // "" = passes
	}{
		{"ok", recipient{}, ""},
		{"no identity", recipient{explicitNoIdentity: true}, errcode.RecipientIdentityMissing},
		{"email channel without email", recipient{Phone: ptr("01012345678")}, errcode.MissingInfo},
		{"kakao channel without phone", recipient{ReceiveType: "KAKAOTALK", Email: ptr("k@example.com")}, errcode.MissingInfo},
		{"holds the badge", recipient{Email: &taken}, errcode.DuplicateIssuance},
		{"held badge expired", recipient{Email: ptr("expired@example.com")}, ""},
		{"held badge revoked", recipient{Email: ptr("revoked@example.com")}, ""},
		{"held in test mode only", recipient{Email: ptr("testmode@example.com")}, ""},
		{"being issued by another issuance", recipient{ReceiveType: "KAKAOTALK", Phone: ptr("01000000001")}, errcode.DuplicateIssuance},
		{"sourcedId only, kakao", recipient{ReceiveType: "KAKAOTALK", Src: ptr("ext-9"), explicitNoIdentity: true}, errcode.MissingInfo},
		{"sourcedId only, email", recipient{Src: ptr("ext-1"), explicitNoIdentity: true}, errcode.MissingInfo},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ids := f.mustIssuance(t, "live", 3, c.r)
			res := f.runCheck(t, ids[0])
			if c.want == "" {
				requirePassed(t, res, ids[0])
				require.Equal(t, StepChecked, f.mustAssertion(t, ids[0]).Step)
				return
			}
			requireCode(t, res, ids[0], c.want, false)
			require.Equal(t, StepPending, f.mustAssertion(t, ids[0]).Step, "a failed check must not record the step")
		})
	}

	t.Run("empty name", func(t *testing.T) {
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: ptr("noname@example.com")})
		_, err := f.DB.Pool.Exec(context.Background(), `UPDATE assertions SET recipient_name = '' WHERE id = $1`, ids[0])
		require.NoError(t, err)
		requireCode(t, f.runCheck(t, ids[0]), ids[0], errcode.MissingInfo, false)
	})

	t.Run("lower seq of the same issuance wins", func(t *testing.T) {
		same := ptr("twice@example.com")
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: same}, recipient{Email: same})
		requireCode(t, f.runCheck(t, ids[1]), ids[1], errcode.DuplicateIssuance, false) // seq 1 loses, whatever runs first
		requirePassed(t, f.runCheck(t, ids[0]), ids[0])
		require.Equal(t, StepChecked, f.mustAssertion(t, ids[0]).Step)
		requireCode(t, f.runCheck(t, ids[1]), ids[1], errcode.DuplicateIssuance, false)
	})

	t.Run("one chunk with both copies and other recipients", func(t *testing.T) {
		same := ptr("chunked@example.com")
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: same}, recipient{}, recipient{Email: same},
			recipient{explicitNoIdentity: true}, recipient{Email: &taken})
		res := f.runCheck(t, ids...)
		require.Len(t, res.Failed, 3)
		requireCode(t, res, ids[2], errcode.DuplicateIssuance, false)
		requireCode(t, res, ids[3], errcode.RecipientIdentityMissing, false)
		requireCode(t, res, ids[4], errcode.DuplicateIssuance, false)
		for i, want := range []string{StepChecked, StepChecked, StepPending, StepPending, StepPending} {
			require.Equal(t, want, f.mustAssertion(t, ids[i]).Step, "recipient %d", i)
		}
	})

	t.Run("already checked", func(t *testing.T) {
		// A retry after the step was recorded passes without checking again.
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: &taken, Step: StepChecked})
		requirePassed(t, f.runCheck(t, ids[0]), ids[0])
	})

	t.Run("lock timeout", func(t *testing.T) {
		ctx := context.Background()
		email := "locked@example.com"
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: &email}, recipient{})
		tx, err := f.DB.Pool.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx) //nolint:errcheck
		_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))`,
			f.OrgID.String()+"/"+f.BadgeID.String()+"/e:"+email)
		require.NoError(t, err)
		start := time.Now()
		res := f.runCheck(t, ids...)
		// The chunk is checked in one transaction: the lock wait fails all of it, and nothing is recorded.
		requireCode(t, res, ids[0], errcode.IssuanceLockTimeout, true)
		requireCode(t, res, ids[1], errcode.IssuanceLockTimeout, true)
		require.Equal(t, StepPending, f.mustAssertion(t, ids[1]).Step)
		require.GreaterOrEqual(t, time.Since(start), 4*time.Second, "lock_timeout is 5s")
		require.NoError(t, tx.Rollback(ctx))
		res = f.runCheck(t, ids...)
		require.Empty(t, res.Failed, "passes once the lock is free")
	})
}

func TestCheckRecipientsBadgeImageMissing(t *testing.T) {
	f := mustFixture(t)
	_, ids := f.mustIssuance(t, "live", 3, recipient{})
	require.NoError(t, f.Blob.Delete(context.Background(), "media/"+f.ImageID.String()+"/original.png"))
	requireCode(t, f.runCheck(t, ids[0]), ids[0], errcode.BadgeImageMissing, false)
	require.Equal(t, StepPending, f.mustAssertion(t, ids[0]).Step)
}
