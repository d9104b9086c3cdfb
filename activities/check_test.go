package activities

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/internal/errcode"
)

// runCheck runs CheckRecipient in the test activity environment, so its errors are what the workflow sees.
func (f *fixture) runCheck(t *testing.T, id uuid.UUID) error {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(quietLog()))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(f.acts)
	_, err := env.ExecuteActivity(f.acts.CheckRecipient, StepInput{AssertionID: id})
	return err
}

func requireCode(t *testing.T, err error, code errcode.Code, nonRetryable bool) {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %v", err)
	require.Equal(t, string(code), appErr.Type(), "error: %v", err)
	require.Equal(t, nonRetryable, appErr.NonRetryable())
}

func TestCheckRecipient(t *testing.T) {
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
			err := f.runCheck(t, ids[0])
			if c.want == "" {
				require.NoError(t, err)
				require.Equal(t, StepChecked, f.mustAssertion(t, ids[0]).Step)
				return
			}
			requireCode(t, err, c.want, true)
			require.Equal(t, StepPending, f.mustAssertion(t, ids[0]).Step, "a failed check must not record the step")
		})
	}

	t.Run("empty name", func(t *testing.T) {
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: ptr("noname@example.com")})
		_, err := f.DB.Pool.Exec(context.Background(), `UPDATE assertions SET recipient_name = '' WHERE id = $1`, ids[0])
		require.NoError(t, err)
		requireCode(t, f.runCheck(t, ids[0]), errcode.MissingInfo, true)
	})

	t.Run("lower seq of the same issuance wins", func(t *testing.T) {
		same := ptr("twice@example.com")
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: same}, recipient{Email: same})
		requireCode(t, f.runCheck(t, ids[1]), errcode.DuplicateIssuance, true) // seq 1 loses, whatever runs first
		require.NoError(t, f.runCheck(t, ids[0]))
		require.Equal(t, StepChecked, f.mustAssertion(t, ids[0]).Step)
		requireCode(t, f.runCheck(t, ids[1]), errcode.DuplicateIssuance, true)
	})

	t.Run("already checked", func(t *testing.T) {
		// A retry after the step was recorded passes without checking again.
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: &taken, Step: StepChecked})
		require.NoError(t, f.runCheck(t, ids[0]))
	})

	t.Run("lock timeout", func(t *testing.T) {
		ctx := context.Background()
		email := "locked@example.com"
		_, ids := f.mustIssuance(t, "live", 3, recipient{Email: &email})
		tx, err := f.DB.Pool.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx) //nolint:errcheck
		_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))`,
			f.OrgID.String()+"/"+f.BadgeID.String()+"/e:"+email)
		require.NoError(t, err)
		start := time.Now()
		requireCode(t, f.runCheck(t, ids[0]), errcode.IssuanceLockTimeout, false)
		require.GreaterOrEqual(t, time.Since(start), 4*time.Second, "lock_timeout is 5s")
		require.NoError(t, tx.Rollback(ctx))
		require.NoError(t, f.runCheck(t, ids[0]), "passes once the lock is free")
	})
}

func TestCheckRecipientBadgeImageMissing(t *testing.T) {
	f := mustFixture(t)
	_, ids := f.mustIssuance(t, "live", 3, recipient{})
	require.NoError(t, f.Blob.Delete(context.Background(), "media/"+f.ImageID.String()+"/original.png"))
	requireCode(t, f.runCheck(t, ids[0]), errcode.BadgeImageMissing, true)
	require.Equal(t, StepPending, f.mustAssertion(t, ids[0]).Step)
}
