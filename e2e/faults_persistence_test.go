//go:build faults

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/waitfor"
	"github.com/badged/badged/workflows"
)

const drillRecipients = 300

// TestFaults_DevPersistenceLossDrill is the operators' drill of losing Temporal's data (docs/operators.md, "When
// Temporal loses its data"): `badged dev` is SIGKILLed while a 300-recipient issuance is mailing, the embedded
// Temporal's data (DATA_DIR/temporal) is deleted, and the process is started again on the same database. Nothing in
// Temporal remembers the issuance; Postgres does: the reconciler starts its workflow again after ORPHAN_AFTER, and
// every recipient ends RECEIVED with one credential, one anchor and one message, a message sent twice only if it was
// in flight at the kill.
func TestFaults_DevPersistenceLossDrill(t *testing.T) {
	s := &stack{DB: dbtest.New(t)}
	smtp := smtptest.Start(t, smtptest.Options{NoTLS: true})
	httpAddr, temporalAddr, chainAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	dataDir := t.TempDir()
	s.BaseURL = "http://" + httpAddr
	env := []string{
		"PATH=/usr/bin:/bin",
		"HOME=" + dataDir,
		"DATABASE_URL=" + dbtest.URL(t, s.DB),
		"DATA_DIR=" + dataDir,
		"HTTP_ADDR=" + httpAddr,
		"METRICS_ADDR=" + freeAddr(t),
		"PUBLIC_BASE_URL=" + s.BaseURL,
		"TEMPORAL_DEV_ADDR=" + temporalAddr,
		"TEMPORAL_UI_ADDR=off",
		"DEV_CHAIN_ADDR=" + chainAddr,
		"SMTP_HOST=" + smtp.Host,
		"SMTP_PORT=" + strconv.Itoa(smtp.Port),
		"SMTP_TLS=none",
		"SMTP_FROM=" + mailFrom,
		"RATE_LIMIT_RPS=0",
		"ORPHAN_AFTER=2s", // the reconciler's grace: how soon an issuance without a workflow gets one
		"LOG_FORMAT=text",
		"TZ=UTC",
	}
	dev := newProc(t, "dev", s.BaseURL+"/readyz", env, "dev")
	dev.Start(t)
	tn := s.mustTenant(t, 2*drillRecipients)

	start := time.Now()
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "drill-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("drill", drillRecipients), ""))
	issuance := uuid.MustParse(id)

	waitfor.True(t, 5*time.Minute, 20*time.Millisecond, "mail to be sent to 100 recipients",
		func() bool { return s.count(t, sentQuery, issuance) >= 100 })
	snap := s.progress(t, issuance)
	require.Positive(t, s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING'",
		issuance), "the kill meets recipients in flight")
	dev.Kill(t)
	killedAt := []int{len(smtp.Messages())}
	temporalDir := filepath.Join(dataDir, "temporal")
	require.DirExists(t, temporalDir)
	require.NoError(t, os.RemoveAll(temporalDir), "Temporal's data lost")
	t0 := time.Now()
	dev.Start(t)

	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, 10*time.Minute)["processingStatus"])
	logText, err := os.ReadFile(dev.log)
	require.NoError(t, err)
	require.Contains(t, string(logText), "started again the workflow of an issuance Temporal no longer has",
		"the reconciler, not the old run, finished it")
	dups := s.requireDevExactlyOnce(t, issuance, drillRecipients, drillDupBound(), dataDir, "http://"+chainAddr,
		temporalAddr, smtp.Messages(), killedAt)
	require.EqualValues(t, drillRecipients, s.credits(t, tn.Org.ID), "300 credits spent, once")

	t.Logf("badged dev, kill -9 and Temporal's data deleted during one %d-recipient issuance (%.1fs in: %s)",
		drillRecipients, t0.Sub(start).Seconds(), snap)
	t.Logf("  COMPLETED %s after the restart; messages accepted twice: %d (bound %d)",
		time.Since(t0).Round(100*time.Millisecond), dups, drillDupBound())
}

// drillDupBound is the re-send window of one kill: the messages in flight, a batch's chunks at once, each with
// activities.NotifyWorkers sending.
func drillDupBound() int {
	return (drillRecipients + workflows.ChunkSize - 1) / workflows.ChunkSize * activities.NotifyWorkers
}
