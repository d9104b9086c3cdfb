package waitfor

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records a failure instead of ending the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestTrueReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	r := &recorder{TB: t}
	True(r, time.Minute, time.Millisecond, "three calls", func() bool { calls++; return calls == 3 })
	if r.failed != "" || calls != 3 {
		t.Fatalf("failed %q after %d calls; want success on the third", r.failed, calls)
	}
}

func TestTimeoutNamesWhatWasAwaited(t *testing.T) {
	r := &recorder{TB: t}
	start := time.Now()
	True(r, 30*time.Millisecond, 5*time.Millisecond, "the sky to fall", func() bool { return false })
	if r.failed != "waited 30ms for the sky to fall" {
		t.Errorf("failure %q", r.failed)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("gave up after %s, before the timeout", d)
	}
}

func TestNoErrorReportsTheLastState(t *testing.T) {
	r := &recorder{TB: t}
	n := 0
	NoError(r, 20*time.Millisecond, 5*time.Millisecond, "the issuance to end", func() error {
		n++
		return fmt.Errorf("still PROCESSING (poll %d)", n)
	})
	want := fmt.Sprintf("waited 20ms for the issuance to end: still PROCESSING (poll %d)", n)
	if r.failed != want || !strings.Contains(r.failed, "PROCESSING") {
		t.Errorf("failure %q, want %q", r.failed, want)
	}
	r.failed = ""
	NoError(r, time.Minute, time.Millisecond, "at once", func() error { return nil })
	if r.failed != "" {
		t.Errorf("failed %q on a check that holds", r.failed)
	}
}
