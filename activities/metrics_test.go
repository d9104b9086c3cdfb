package activities

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/metrics"
)

// scrapeText returns the registry's text exposition.
func scrapeText(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return string(b)
}

// TestMetrics_StepsAndOutcomes checks that step attempts are counted by outcome and class where they end (runStep),
// and that a recipient or issuance outcome is counted once, not again when the activity is retried.
func TestMetrics_StepsAndOutcomes(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	m := metrics.New()
	f.acts.Metrics = m
	taken := "holder@example.com"
	f.mustIssuance(t, "live", 3, recipient{Email: &taken, State: "RECEIVED"})

	_, ok := f.mustIssuance(t, "live", 3, recipient{})
	requirePassed(t, f.runCheck(t, ok[0]), ok[0])
	iss, dup := f.mustIssuance(t, "live", 3, recipient{Email: &taken})
	requireCode(t, f.runCheck(t, dup[0]), dup[0], errcode.DuplicateIssuance, false)

	for range 2 { // the second call is a retry of an activity that already wrote its result
		_, err := f.acts.FinishAssertions(ctx, FinishBatch{IssuanceID: iss, Outcomes: []Outcome{
			{AssertionID: dup[0], ErrorCode: string(errcode.DuplicateIssuance), Stage: StepChecked}}})
		require.NoError(t, err)
		require.NoError(t, f.acts.CompleteIssuance(ctx, CompleteIssuanceInput{IssuanceID: iss}))
	}

	text := scrapeText(t, m)
	class := f.acts.Policy.ClassOf(errcode.DuplicateIssuance)
	for _, want := range []string{
		`badged_activity_attempts_total{class="none",outcome="success",step="check"} 1`,
		`badged_activity_attempts_total{class="` + class + `",outcome="failed",step="check"} 1`,
		`badged_activity_duration_seconds_count{outcome="success",step="check"} 1`,
		`badged_recipients_finished_total{error_code="DUPLICATE_ISSUANCE",state="FAILED"} 1`,
		// The give-up by the step it failed at, named as attempts name it, once despite the retried write.
		`badged_activity_give_ups_total{error_code="DUPLICATE_ISSUANCE",step="check"} 1`,
		`badged_issuances_finished_total{status="COMPLETED"} 1`,
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "badged_activity_retries_total{", "first attempts are not retries")
}

// TestMetrics_FailedRunCountsItsRecipients checks that the recipients a failed run closes in bulk are counted,
// once, like the ones finished one by one.
func TestMetrics_FailedRunCountsItsRecipients(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	m := metrics.New()
	f.acts.Metrics = m
	iss, _ := f.mustIssuance(t, "live", 3, recipient{}, recipient{})
	for range 2 { // a retried CompleteIssuance counts nothing more
		require.NoError(t, f.acts.CompleteIssuance(ctx, CompleteIssuanceInput{IssuanceID: iss, Failure: "batch failed"}))
	}
	text := scrapeText(t, m)
	require.Contains(t, text, `badged_recipients_finished_total{error_code="INTERNAL_SERVER_ERROR",state="FAILED"} 2`)
	require.Contains(t, text, `badged_activity_give_ups_total{error_code="INTERNAL_SERVER_ERROR",step="issuance"} 2`)
	require.Contains(t, text, `badged_issuances_finished_total{status="FAILED"} 1`)
}
