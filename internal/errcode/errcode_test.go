package errcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestWrapNilIsNilError(t *testing.T) {
	var err error = Wrap(ArtifactUploadFailed, "store", nil)
	if err != nil {
		t.Fatalf("Wrap of a nil cause = %#v, want a nil error", err)
	}
}

func TestOf(t *testing.T) {
	cause := errors.New("connection reset")
	cases := []struct {
		err  error
		want Code
	}{
		{nil, ""},
		{cause, Unknown},
		{Wrap(EmailServerError, "send", cause), EmailServerError},
		{fmt.Errorf("notify: %w", New(RejectedEmail, "550")), RejectedEmail},
	}
	for _, c := range cases {
		if got := Of(c.err); got != c.want {
			t.Errorf("Of(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if !errors.Is(Wrap(EmailServerError, "send", cause), cause) {
		t.Error("the cause is not reachable through Unwrap")
	}
}
