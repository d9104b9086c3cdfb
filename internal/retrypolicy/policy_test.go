package retrypolicy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/temporal"
)

func TestDefaultPolicyIsComplete(t *testing.T) {
	p, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range errcode.All {
		if _, ok := p.Classes[p.ClassOf(c)]; !ok {
			t.Errorf("%s has no class", c)
		}
	}
}

func TestDecide(t *testing.T) {
	p, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		code    errcode.Code
		attempt int
		retry   bool
		delay   time.Duration
	}{
		{errcode.DuplicateIssuance, 1, false, 0},
		{errcode.RejectedEmail, 1, false, 0},
		{errcode.EmailServerError, 1, true, 5 * time.Second},
		{errcode.EmailServerError, 2, true, 10 * time.Second},
		{errcode.EmailServerError, 9, true, 5 * time.Minute}, // capped at maximumInterval
		{errcode.EmailServerError, 10, false, 0},             // maximumAttempts reached
		{errcode.BlockchainRPCFailed, 2, true, 4500 * time.Millisecond},
		{errcode.Code("NOT_A_CODE"), 1, true, time.Second}, // classed like UNKNOWN
	}
	for _, c := range cases {
		retry, delay := p.Decide(c.code, c.attempt)
		if retry != c.retry || delay != c.delay {
			t.Errorf("Decide(%s, %d) = %v, %v; want %v, %v", c.code, c.attempt, retry, delay, c.retry, c.delay)
		}
	}
}

func TestParseRejectsIncompletePolicies(t *testing.T) {
	cases := map[string]string{
		"missing code":  `{"classes":{"permanent":{"retryable":false}},"codes":{"UNKNOWN":"permanent"}}`,
		"unknown class": strings.Replace(string(temporal.DefaultRetryPolicy), `"UNKNOWN": "internal"`, `"UNKNOWN": "nope"`, 1),
		"bad interval":  strings.Replace(string(temporal.DefaultRetryPolicy), `"initialInterval": "1s"`, `"initialInterval": "0s"`, 1),
		"extra code":    strings.Replace(string(temporal.DefaultRetryPolicy), `"UNKNOWN": "internal"`, `"UNKNOWN": "internal", "NEW_CODE": "internal"`, 1),
		"not json":      `{`,
	}
	for name, in := range cases {
		if _, err := retrypolicy.Parse([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
