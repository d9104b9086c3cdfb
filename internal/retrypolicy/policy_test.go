package retrypolicy_test

import (
	"fmt"
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

// lineOf is the 1-based line of the first occurrence of s in the default policy.
func lineOf(t *testing.T, s string) int {
	t.Helper()
	i := strings.Index(string(temporal.DefaultRetryPolicy), s)
	if i < 0 {
		t.Fatalf("%q not in the default policy", s)
	}
	return strings.Count(string(temporal.DefaultRetryPolicy[:i]), "\n") + 1
}

func TestParseNamesTheLineOfEachMistake(t *testing.T) {
	def := string(temporal.DefaultRetryPolicy)
	cases := []struct {
		name, from, to, want string
		line                 int
	}{
		{"misspelled field", `"transient":   {"retryable": true`, `"transient":   {"retryabel": true`, `unknown field "retryabel"`, lineOf(t, `"transient":`)},
		{"missing retryable", `"permanent":   {"retryable": false}`, `"permanent":   {}`, `class permanent: "retryable" is required`, lineOf(t, `"permanent":   {`)},
		{"unknown code", `"UNKNOWN": "internal"`, `"UNKNOWN": "internal", "NOT_A_CODE": "internal"`, "code NOT_A_CODE is not an assertion errorCode", lineOf(t, `"UNKNOWN": "internal"`)},
		{"unknown class", `"REJECTED_EMAIL": "permanent"`, `"REJECTED_EMAIL": "permanant"`, `code REJECTED_EMAIL: unknown class "permanant"`, lineOf(t, `"REJECTED_EMAIL"`)},
		{"bad duration", `"maximumInterval": "2m"`, `"maximumInterval": "2 minutes"`, "2 minutes", lineOf(t, `"maximumInterval": "2m"`)},
		{"wrong type", `"maximumAttempts": 8`, `"maximumAttempts": "8"`, "maximumAttempts", lineOf(t, `"maximumAttempts": 8`)},
		{"unknown top-level field", `"codes": {`, `"code": {}, "codes": {`, `unknown field "code"`, lineOf(t, `"codes": {`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(def, c.from, c.to, 1)
			if in == def {
				t.Fatalf("%q not in the default policy", c.from)
			}
			_, err := retrypolicy.Parse([]byte(in))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf("line %d:", c.line)) {
				t.Errorf("error %q; want %q at line %d", err, c.want, c.line)
			}
		})
	}
}

func TestParseRejectsTrailingData(t *testing.T) {
	_, err := retrypolicy.Parse(append(append([]byte{}, temporal.DefaultRetryPolicy...), []byte(`{}`)...))
	if err == nil || !strings.Contains(err.Error(), "data after the policy object") {
		t.Fatalf("err = %v", err)
	}
}

func TestFormatPrintsTheEffectiveTable(t *testing.T) {
	p, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.Format(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"remote     yes        5s       2        5m0s     10", "permanent  no", "EMAIL_SERVER_ERROR", "REJECTED_EMAIL"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if got, want := strings.Count(out, "\n"), len(p.Classes)+len(p.Codes)+3; got != want {
		t.Errorf("%d lines, want %d:\n%s", got, want, out)
	}
}

// The shipped webhook class retries a delivery for about a day, then gives up (the delivery is FAILED).
func TestWebhookClassSchedule(t *testing.T) {
	p, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	if err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	attempts := 1
	for ; ; attempts++ {
		retry, delay := p.DecideClass(retrypolicy.WebhookClass, attempts)
		if !retry {
			break
		}
		total += delay
	}
	if attempts != 11 || total < 20*time.Hour || total > 28*time.Hour {
		t.Fatalf("webhook class: %d attempts over %s; want 11 over about 24h", attempts, total)
	}
	noWebhook := strings.Replace(string(temporal.DefaultRetryPolicy), `"webhook":`, `"webhooks":`, 1)
	if _, err := retrypolicy.Parse([]byte(noWebhook)); err == nil || !strings.Contains(err.Error(), "class webhook is required") {
		t.Fatalf("a policy without the webhook class: %v", err)
	}
}

// Describe is the one line the workflow details show for the class a failed step ran with.
func TestDescribeIsTheClassRuleInOneLine(t *testing.T) {
	p, err := retrypolicy.Parse(temporal.DefaultRetryPolicy)
	if err != nil {
		t.Fatal(err)
	}
	for class, want := range map[string]string{
		"remote":    "remote: 5s ×2 up to 5m0s, 10 attempts",
		"chain":     "chain: 3s ×1.5 up to 1m0s, 20 attempts",
		"permanent": "permanent: not retried",
	} {
		if got := p.Describe(class); got != want {
			t.Errorf("Describe(%q) = %q, want %q", class, got, want)
		}
	}
}
