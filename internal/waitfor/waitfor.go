// Package waitfor is the tests' one way to wait for a condition that another goroutine or process brings about:
// poll it, and past a timeout fail the test saying what was awaited and the state it was last seen in. Only
// tests import it; it imports nothing of the module.
package waitfor

import (
	"testing"
	"time"
)

// True calls cond every `every` until it returns true. Once timeout has passed (cond having been called once more),
// it fails tb: "waited <timeout> for <what>".
func True(tb testing.TB, timeout, every time.Duration, what string, cond func() bool) {
	tb.Helper()
	NoError(tb, timeout, every, what, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}

// NoError calls check every `every` until it returns nil; its error says what state the awaited thing is still
// in. Once timeout has passed (check having been called once more), it fails tb: "waited <timeout> for <what>:
// <check's last error>".
func NoError(tb testing.TB, timeout, every time.Duration, what string, check func() error) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if !time.Now().Before(deadline) {
			if err == errNotYet {
				tb.Fatalf("waited %s for %s", timeout, what)
			} else {
				tb.Fatalf("waited %s for %s: %v", timeout, what, err)
			}
			return // Fatalf has ended the test's goroutine; a TB that records failures comes back here
		}
		time.Sleep(every)
	}
}

// notYet is True's unmet condition, which has nothing to say beyond what.
type notYet struct{}

func (notYet) Error() string { return "not yet" }

var errNotYet error = notYet{}
