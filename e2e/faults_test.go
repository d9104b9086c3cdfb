//go:build faults

// The fault tests restart the machine's Postgres cluster, which would break every other test running at the same
// time, so they build only with -tags faults and run alone: `make test-faults`. With BADGED_FAULTS_PGDATA and
// TEST_DATABASE_URL naming another server, they restart that one instead (restartPostgres).

package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/notify/smtptest"

	"github.com/badged/badged/internal/waitfor"
)

// Fault schedule: issuances keep arriving while each fault happens in turn, so every fault meets recipients at
// every step.
const (
	faultIssuances    = 16                      // posted one after another, alternately large and small
	faultFeedEvery    = 2500 * time.Millisecond // between two posts: about 40 s of arrivals
	faultLargeSize    = 30
	faultSmallSize    = 8
	faultWorkerDown   = 2 * time.Second
	faultSMTPRefuses  = 8 * time.Second
	faultChainDown    = 6 * time.Second
	faultPostgresDown = 5 * time.Second
)

// TestFaults_IssuanceSurvives runs one API and one worker process while issuances arrive, and meanwhile: SIGKILLs
// the worker and starts it again; stops the chain node and starts it again on the same data; makes SMTP answer
// 421 for a while; stops Postgres for 5 s and starts it again. The integrator's client retries a failed POST with the same
// Idempotency-Key, as the contract tells it to. At the end every recipient is in exactly one final state with
// exactly one credential, one anchor and one Message-ID, and nothing is left running (cluster.exactlyOnce).
func TestFaults_IssuanceSurvives(t *testing.T) {
	c := newCluster(t, clusterOptions{apis: 1, workers: 1})
	tn := c.mustTenant(t, 1000)
	start := time.Now()
	feed := c.feed(t, tn)

	var events []string
	fault := func(name string, do func()) {
		// A fault must meet recipients in flight; arrivals are 2.5 s apart, so some soon are.
		c.waitCount(t, 30*time.Second, 1, "SELECT count(*) FROM assertions WHERE state = 'PROCESSING'")
		pending := c.count(t, "SELECT count(*) FROM assertions WHERE state = 'PROCESSING'")
		t0 := time.Now()
		do()
		events = append(events, fmt.Sprintf("%-16s at %5.1fs, %3d recipients in flight, %s", name,
			t0.Sub(start).Seconds(), pending, time.Since(t0).Round(100*time.Millisecond)))
	}
	// Each fault after the first starts once the service has recovered from the one before: a recipient reached
	// its outcome after that fault ended.
	recovered := func() {
		since := time.Now()
		c.waitCount(t, 2*time.Minute, 1, "SELECT count(*) FROM assertions WHERE state <> 'PROCESSING' AND updated_at > $1", since)
	}
	// Once mail is flowing, the worker dies mid-step.
	c.waitCount(t, 2*time.Minute, 10, "SELECT count(*) FROM notifications WHERE status = 'SENT'")
	var killedAt int // messages accepted when the worker died
	fault("worker SIGKILL", func() {
		c.Workers[0].Kill(t)
		killedAt = len(c.messages(t))
		time.Sleep(faultWorkerDown)
		c.Workers[0].Start(t)
	})
	recovered()
	fault("chain node down", func() {
		require.NoError(t, c.Chain.Close())
		time.Sleep(faultChainDown)
		c.startChain(t, c.chainAddr)
	})
	recovered()
	fault("SMTP 421", func() {
		c.SMTP.SetFault(smtptest.StageMail, smtptest.Fault{Code: 421, Message: "4.3.2 try again later"})
		time.Sleep(faultSMTPRefuses)
		c.SMTP.ClearFaults()
	})
	recovered()
	var during map[int]int
	fault("Postgres restart", func() { during = c.probeDuring(func() { restartPostgres(t, faultPostgresDown) }) })
	c.APIs[0].WaitReady(t, 30*time.Second)

	runs, postRetries := feed.wait(t)
	for _, r := range runs {
		c.waitIssuance(t, "v3", r.Key, r.ID, 10*time.Minute)
	}
	elapsed := time.Since(start)
	redelivered := c.exactlyOnce(t, runs)
	requireResentOnlyAfterKill(t, c.messages(t), killedAt)

	// The restarted worker's counters show that the chain and SMTP faults were met, and retried past.
	w := c.Workers[0]
	anchorRetries := w.scrape(t, "badged_activity_attempts_total", `step="anchor"`, `outcome="retry"`)
	notifyRetries := w.scrape(t, "badged_activity_attempts_total", `step="notify"`, `outcome="retry"`)
	require.Positive(t, anchorRetries, "an anchor step met the chain node down")
	require.Positive(t, notifyRetries, "a notify step met SMTP refusing")
	require.Zero(t, w.scrape(t, "badged_activity_attempts_total", `outcome="failed"`), "no step gave up")

	total := 0
	for _, r := range runs {
		total += r.Recipients
	}
	t.Logf("faults: %d issuances, %d recipients, all COMPLETED in %s", len(runs), total, elapsed.Round(time.Second))
	for _, e := range events {
		t.Logf("  %s", e)
	}
	t.Logf("  POST retries by the client: %d; messages re-sent under the same Message-ID: %d", postRetries, redelivered)
	t.Logf("  API answers to GET /readyz while Postgres restarted: %v (status: count)", during)
	for _, step := range []string{"check", "sign", "anchor", "bake", "upload", "notify"} {
		t.Logf("  restarted worker, step %-6s: %4.0f succeeded, %3.0f retried", step,
			w.scrape(t, "badged_activity_attempts_total", `step="`+step+`"`, `outcome="success"`),
			w.scrape(t, "badged_activity_attempts_total", `step="`+step+`"`, `outcome="retry"`))
	}
}

// probeDuring asks the API's /readyz every 100 ms while do runs and counts the answers by status (0: no answer),
// to show what a load balancer sees during an outage.
func (c *cluster) probeDuring(do func()) map[int]int {
	counts := map[int]int{}
	stop := make(chan struct{})
	done := make(chan struct{})
	client := &http.Client{Timeout: 2 * time.Second}
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			status := 0
			if res, err := client.Get(c.APIs[0].Ready); err == nil {
				status = res.StatusCode
				res.Body.Close()
			}
			counts[status]++
		}
	}()
	do()
	close(stop)
	<-done
	return counts
}

// requireResentOnlyAfterKill checks where messages sent twice come from: the first copy was accepted before the
// worker was killed, the second after. That is the one window the design leaves (the SMTP server accepted the
// message, the worker died before recording it); every other fault, the Postgres outage included, sends nothing
// twice.
func requireResentOnlyAfterKill(tb testing.TB, msgs []smtptest.Message, killedAt int) {
	tb.Helper()
	first := map[string]int{}
	for i, m := range msgs {
		id := strings.Trim(m.MessageID, "<>")
		j, seen := first[id]
		if !seen {
			first[id] = i
			continue
		}
		require.Less(tb, j, killedAt, "message %s: first copy accepted before the worker was killed", id)
		require.GreaterOrEqual(tb, i, killedAt, "message %s: second copy accepted after", id)
	}
}

// feeder posts issuances in the background like an integrator's client, retrying each POST with its
// Idempotency-Key until it is accepted.
type feeder struct {
	mu      sync.Mutex
	runs    []issued
	retries int
	errs    []string
	done    chan struct{}
}

func (c *cluster) feed(tb testing.TB, tn tenant) *feeder {
	tb.Helper()
	f := &feeder{done: make(chan struct{})}
	bodies := make([]string, faultIssuances)
	sizes := make([]int, faultIssuances)
	for i := range bodies {
		sizes[i] = faultLargeSize
		if i%2 == 1 {
			sizes[i] = faultSmallSize
		}
		bodies[i] = issuanceBody(tb, tn.Program, emailRecipients(fmt.Sprintf("fault%02d", i), sizes[i]), "")
	}
	go func() {
		defer close(f.done)
		for i, body := range bodies {
			key := "fault-" + uuid.NewString()
			deadline := time.Now().Add(3 * time.Minute)
			for {
				r := c.postIssuanceNoFail(key, tn, body)
				if r.status == http.StatusOK {
					f.mu.Lock()
					f.runs = append(f.runs, issued{ID: r.id, Key: tn.Key, Recipients: sizes[i]})
					f.mu.Unlock()
					break
				}
				f.mu.Lock()
				f.retries++
				if time.Now().After(deadline) {
					f.errs = append(f.errs, fmt.Sprintf("issuance %d: last answer %d %s", i, r.status, r.raw))
					f.mu.Unlock()
					break
				}
				f.mu.Unlock()
				time.Sleep(500 * time.Millisecond)
			}
			time.Sleep(faultFeedEvery)
		}
	}()
	return f
}

// wait returns the accepted issuances and how many POSTs had to be retried.
func (f *feeder) wait(tb testing.TB) ([]issued, int) {
	tb.Helper()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Empty(tb, f.errs, "every issuance accepted")
	require.Len(tb, f.runs, faultIssuances)
	return f.runs, f.retries
}

// faultsPGDataEnv names the data directory of a Postgres server the fault tests may restart with pg_ctl instead of
// the machine's Debian cluster; TEST_DATABASE_URL then points at that server. It lets the fault tests run beside
// other work on a shared machine without restarting the Postgres that work uses.
const faultsPGDataEnv = "BADGED_FAULTS_PGDATA"

// restartPostgres stops the Postgres the tests use (fast mode: every connection is closed), keeps it down for
// down, as a failover or a host reboot would, starts it and waits until it accepts connections. By default that is
// the machine's Debian cluster (pg_ctlcluster), the server dbtest.DefaultURL names; BADGED_FAULTS_PGDATA picks
// another (pg_ctl).
func restartPostgres(tb testing.TB, down time.Duration) {
	tb.Helper()
	ctl := machinePostgres(tb)
	if dir := os.Getenv(faultsPGDataEnv); dir != "" {
		ctl = privatePostgres(tb, dir)
	}
	// Whatever happens to the test, the Postgres is left running.
	tb.Cleanup(func() {
		if !postgresUp() {
			_, _ = ctl("start")
		}
	})
	for _, step := range []string{"stop", "start"} {
		out, err := ctl(step)
		require.NoError(tb, err, "postgres %s: %s", step, out)
		if step == "stop" {
			time.Sleep(down)
		}
	}
	waitfor.True(tb, time.Minute, 200*time.Millisecond, "Postgres back", postgresUp)
}

// machinePostgres stops and starts the local Debian Postgres cluster.
func machinePostgres(tb testing.TB) func(action string) ([]byte, error) {
	tb.Helper()
	versions, err := os.ReadDir("/etc/postgresql")
	require.NoError(tb, err, "the fault tests restart the local Debian Postgres cluster (or set %s)", faultsPGDataEnv)
	require.Len(tb, versions, 1)
	return func(action string) ([]byte, error) {
		args := []string{"--skip-systemctl-redirect", versions[0].Name(), "main", action}
		if action == "stop" {
			args = append([]string{"-m", "fast"}, args...)
		}
		return exec.Command("pg_ctlcluster", args...).CombinedOutput()
	}
}

// privatePostgres stops and starts the server in data directory dir with pg_ctl, as the directory's owner
// (Postgres refuses to run as root). Its settings (port, sockets) are in its postgresql.conf.
func privatePostgres(tb testing.TB, dir string) func(action string) ([]byte, error) {
	tb.Helper()
	pgCtl, err := exec.LookPath("pg_ctl")
	if err != nil {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
		require.NotEmpty(tb, matches, "pg_ctl not found")
		pgCtl = matches[len(matches)-1]
	}
	st, err := os.Stat(dir)
	require.NoError(tb, err, "%s", faultsPGDataEnv)
	owner, err := user.LookupId(strconv.Itoa(int(st.Sys().(*syscall.Stat_t).Uid)))
	require.NoError(tb, err)
	return func(action string) ([]byte, error) {
		args := []string{pgCtl, "-D", dir, "-w", "-l", filepath.Join(dir, "restart.log"), "-m", "fast", action}
		if os.Geteuid() == 0 && owner.Uid != "0" {
			args = append([]string{"runuser", "-u", owner.Username, "--"}, args...)
		}
		return exec.Command(args[0], args[1:]...).CombinedOutput()
	}
}

// waitCount waits until query counts at least want.
func (c *cluster) waitCount(tb testing.TB, timeout time.Duration, want int, query string, args ...any) {
	tb.Helper()
	waitfor.True(tb, timeout, 50*time.Millisecond, fmt.Sprintf("%q to reach %d", query, want),
		func() bool { return c.count(tb, query, args...) >= want })
}

// postgresUp reports whether the Postgres the tests use accepts connections.
func postgresUp() bool {
	u, err := url.Parse(dbtest.ServerURL())
	if err != nil {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return exec.Command("pg_isready", "-q", "-h", u.Hostname(), "-p", port).Run() == nil
}
