//go:build faults

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/workflows"

	"github.com/badged/badged/internal/waitfor"
)

const devKillRecipients = 500

// devKillPoint is a moment to kill `badged dev` at: when query (over the issuance id, and the step list if any)
// first counts at least want, and more than it counted when the process last started, so each kill meets new
// progress.
type devKillPoint struct {
	name  string
	query string
	steps []string
	want  int
}

func (k devKillPoint) count(tb testing.TB, s *stack, issuance uuid.UUID) int {
	tb.Helper()
	if k.steps == nil {
		return s.count(tb, k.query, issuance)
	}
	return s.count(tb, k.query, issuance, k.steps)
}

// stepsFrom lists step and every later step of the pipeline: the recipients that reached it.
func stepsFrom(step string) []string {
	order := []string{activities.StepPending, activities.StepChecked, activities.StepSigned, activities.StepAnchored,
		activities.StepBaked, activities.StepPublished, activities.StepNotified, activities.StepDone}
	for i, s := range order {
		if s == step {
			return order[i:]
		}
	}
	panic("unknown step " + step)
}

const (
	reachedQuery = "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND step = ANY($2)"
	// The anchor transaction of the issuance's credentials signed and stored: it is broadcast right after, and
	// mined at the dev chain's next block (1 s).
	anchorSentQuery = "SELECT count(*) FROM chain_txs c WHERE c.tx_hash IS NOT NULL AND c.anchor_key IN " +
		"(SELECT anchor_key FROM assertions WHERE issuance_id = $1)"
	sentQuery = "SELECT count(*) FROM notifications n JOIN assertions a ON a.id = n.assertion_id " +
		"WHERE a.issuance_id = $1 AND n.status = 'SENT'"
)

// devKillPoints: while signing (a chunk signed, the others waiting to share an anchor), between storing the anchor
// transaction and seeing it mined (in the dev chain's pool, or not yet sent: what a crash used to strand), and in
// the middle of sending mail (the one window where a message can go out twice).
var devKillPoints = []devKillPoint{
	{"signed", reachedQuery, stepsFrom(activities.StepSigned), 100},
	{"anchor sent", anchorSentQuery, nil, 1},
	{"mail sent", sentQuery, nil, 200},
}

// TestFaults_DevSurvivesKill9 runs the embedded default as a user does, one `badged dev` process (API, worker,
// Temporal server, dev chain) on its own DATA_DIR and database, mailing to a real SMTP server, and SIGKILLs the
// whole process three times during one 500-recipient issuance, each time at a different step, starting it again
// on the same DATA_DIR and database. The issuance must complete with every recipient RECEIVED, exactly one
// credential and one anchor each, every anchor mined on the chain the process replayed from its journal, and
// mail sent twice only in the window the design leaves (accepted by SMTP, process killed before recording it).
func TestFaults_DevSurvivesKill9(t *testing.T) {
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
		"LOG_FORMAT=text",
		"TZ=UTC",
	}
	dev := newProc(t, "dev", s.BaseURL+"/readyz", env, "dev")
	dev.Start(t)
	tn := s.mustTenant(t, 2*devKillRecipients)

	start := time.Now()
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "devkill-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("devkill", devKillRecipients), ""))
	issuance := uuid.MustParse(id)

	var timeline []string
	killedAt := make([]int, 0, len(devKillPoints)) // messages accepted when each kill happened
	for _, k := range devKillPoints {
		want := max(k.want, k.count(t, s, issuance)+1)
		waitfor.True(t, 5*time.Minute, 20*time.Millisecond, fmt.Sprintf("%s to reach %d", k.name, want),
			func() bool { return k.count(t, s, issuance) >= want })
		snap := s.progress(t, issuance)
		require.Positive(t, s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING'",
			issuance), "kill %q meets recipients in flight", k.name)
		t0 := time.Now()
		dev.Kill(t)
		killedAt = append(killedAt, len(smtp.Messages()))
		dev.Start(t)
		timeline = append(timeline, fmt.Sprintf("kill -9 at %-11s (%5.1fs): %s; restarted in %s", k.name,
			t0.Sub(start).Seconds(), snap, time.Since(t0).Round(100*time.Millisecond)))
	}
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, 10*time.Minute)["processingStatus"])
	elapsed := time.Since(start)

	// Once more after the end: what is checked below is what the chain replays from its journal after a kill.
	dev.Kill(t)
	dev.Start(t)

	dups := s.requireDevExactlyOnce(t, issuance, devKillRecipients, devDupBound(), dataDir, "http://"+chainAddr, temporalAddr,
		smtp.Messages(), killedAt)
	require.EqualValues(t, devKillRecipients, s.credits(t, tn.Org.ID), "500 credits spent, once")

	t.Logf("badged dev, kill -9 ×%d during one %d-recipient issuance: COMPLETED %s after the POST",
		len(devKillPoints), devKillRecipients, elapsed.Round(100*time.Millisecond))
	for _, e := range timeline {
		t.Logf("  %s", e)
	}
	t.Logf("  messages accepted twice under one Message-ID: %d (bound %d); %s", dups, devDupBound(),
		s.anchorSummary(t))
	t.Logf("  after a last kill -9 the chain replayed: %s", lastReplay(t, dev))
}

// devDupBound is the documented re-send window: each kill can lose the SENT record of at most the messages in
// flight, a batch's chunks (workflows.ChunkSize) at once, activities.NotifyWorkers each.
func devDupBound() int {
	chunks := (devKillRecipients + workflows.ChunkSize - 1) / workflows.ChunkSize
	return len(devKillPoints) * chunks * activities.NotifyWorkers
}

// requireDevExactlyOnce checks the end state of an issuance of n recipients (the only one on the process's
// DATA_DIR) and returns how many messages were accepted a second time, at most dupBound.
func (s *stack) requireDevExactlyOnce(tb testing.TB, issuance uuid.UUID, n, dupBound int, dataDir, chainURL, temporalAddr string,
	msgs []smtptest.Message, killedAt []int) int {
	tb.Helper()
	rows := s.assertionRows(tb, issuance.String())
	require.Len(tb, rows, n)
	require.Equal(tb, n, s.count(tb,
		"SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED' AND step = 'NOTIFIED'", issuance),
		"every recipient RECEIVED")

	// One credential and one baked image per recipient on disk, nothing else.
	blobs := filepath.Join(dataDir, "blobs")
	for _, dir := range []string{"credentials", "baked"} {
		entries, err := os.ReadDir(filepath.Join(blobs, dir))
		require.NoError(tb, err)
		// A SIGKILL in the middle of a write leaves that write's temporary file (blob.Local writes .tmp-* and
		// renames it into place): never an object, no key reaches it, so it is not counted.
		objects := slices.DeleteFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), ".tmp-") })
		require.Len(tb, objects, n, "%s/: one object per recipient", dir)
	}
	for _, a := range rows {
		aid := a.ID.String()
		require.FileExists(tb, filepath.Join(blobs, issuer.CredentialKey(aid)))
		require.FileExists(tb, filepath.Join(blobs, issuer.BakedKey(aid, "image/png")))
		require.NotNil(tb, a.AnchorTxHash, "assertion %s anchored", aid)
	}

	// One anchor per recipient: each assertion in exactly one anchor transaction, each transaction mined and
	// carrying the root of its credentials; the sender sent exactly the transactions stored, no more.
	require.Equal(tb, n, s.count(tb,
		"SELECT count(*) FROM assertions a JOIN chain_txs c ON c.anchor_key = a.anchor_key AND c.tx_hash = a.anchor_tx_hash "+
			"WHERE a.issuance_id = $1", issuance), "every recipient's anchor is a stored transaction")
	require.Zero(tb, s.count(tb, "SELECT count(*) FROM chain_txs WHERE block_number IS NULL OR tx_hash IS NULL"),
		"every stored transaction mined")
	var sender string
	require.NoError(tb, s.DB.Pool.QueryRow(context.Background(), "SELECT DISTINCT sender FROM chain_txs").Scan(&sender))
	ec, err := ethclient.Dial(chainURL)
	require.NoError(tb, err)
	defer ec.Close()
	nonce, err := ec.NonceAt(context.Background(), common.HexToAddress(sender), nil)
	require.NoError(tb, err)
	require.EqualValues(tb, s.count(tb, "SELECT count(*) FROM chain_txs"), nonce, "sender nonce = transactions stored")
	requireAnchorRoots(tb, s.DB, chainURL)

	// Nothing of the issuance still runs in Temporal (batches and re-drives included).
	tc, err := client.Dial(client.Options{HostPort: temporalAddr, Namespace: "default"})
	require.NoError(tb, err)
	defer tc.Close()
	// Visibility lags the history, and the last kill may have met the parent finishing: wait a little.
	waitfor.NoError(tb, 30*time.Second, 200*time.Millisecond, "no workflow of the issuance running", func() error {
		running, err := tc.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
			Query: workflows.IssuanceIDKey.GetName() + ` = "` + issuance.String() + `" AND ExecutionStatus = "Running"`})
		require.NoError(tb, err)
		if running.Count > 0 {
			return fmt.Errorf("%d still running", running.Count)
		}
		return nil
	})

	return requireMailWindow(tb, rows, msgs, killedAt, dupBound)
}

// requireMailWindow checks one Message-ID per recipient, sent to that recipient, and that every second copy of a
// message comes from the re-send window: a kill falls between the two copies. It returns the copies beyond one.
func requireMailWindow(tb testing.TB, rows []db.Assertion, msgs []smtptest.Message, killedAt []int, dupBound int) int {
	tb.Helper()
	to := map[string]string{} // Message-ID -> recipient
	for _, a := range rows {
		to[messageID(a.ID.String())] = *a.RecipientEmail
	}
	seen := map[string][]int{} // Message-ID -> indexes of its copies
	for i, m := range msgs {
		mid := strings.Trim(m.MessageID, "<>")
		addr, ok := to[mid]
		require.True(tb, ok, "message %s belongs to a recipient", mid)
		require.Equal(tb, []string{addr}, m.To, "message %s", mid)
		seen[mid] = append(seen[mid], i)
	}
	require.Len(tb, seen, len(rows), "every recipient mailed")
	dups := 0
	for mid, idx := range seen {
		for j := 1; j < len(idx); j++ {
			between := false
			for _, k := range killedAt {
				between = between || (idx[j-1] < k && k <= idx[j])
			}
			require.True(tb, between, "message %s: copies %d and %d have no kill between them", mid, idx[j-1], idx[j])
			dups++
		}
	}
	require.LessOrEqual(tb, dups, dupBound, "re-sent messages within the documented window")
	return dups
}

// progress describes where the recipients of an issuance are, for the timeline.
func (s *stack) progress(tb testing.TB, issuance uuid.UUID) string {
	tb.Helper()
	var parts []string
	for _, st := range []string{activities.StepSigned, activities.StepAnchored, activities.StepNotified} {
		parts = append(parts, fmt.Sprintf("%s %d", strings.ToLower(st), s.count(tb, reachedQuery, issuance, stepsFrom(st))))
	}
	parts = append(parts, fmt.Sprintf("mail sent %d", s.count(tb, sentQuery, issuance)),
		fmt.Sprintf("anchor txs stored %d, mined %d", s.count(tb, anchorSentQuery, issuance),
			s.count(tb, anchorSentQuery+" AND c.block_number IS NOT NULL", issuance)))
	return strings.Join(parts, ", ")
}

// anchorSummary counts the transactions the sender sent: anchors and gap fillers.
func (s *stack) anchorSummary(tb testing.TB) string {
	tb.Helper()
	return fmt.Sprintf("%d anchor transactions, %d gap fillers",
		s.count(tb, "SELECT count(*) FROM chain_txs WHERE anchor_key LIKE 'anchor/%'"),
		s.count(tb, "SELECT count(*) FROM chain_txs WHERE anchor_key LIKE 'filler/%'"))
}

// lastReplay is the dev chain's start-up line of the process's last start: what its journal gave back.
func lastReplay(tb testing.TB, p *proc) string {
	tb.Helper()
	data, err := os.ReadFile(p.log)
	require.NoError(tb, err)
	lines := strings.Split(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "dev chain running") {
			if j := strings.Index(lines[i], "replayed_blocks"); j >= 0 {
				return lines[i][j:]
			}
		}
	}
	return "(no start-up line)"
}
