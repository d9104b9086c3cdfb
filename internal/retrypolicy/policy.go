// Package retrypolicy is the table that maps every assertion errorCode to a failure class and every class to a
// retry decision. Operators tune it in a file (temporal/retry-policy.json by default) without a rebuild.
//
// It imports only internal/errcode.
package retrypolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/badged/badged/internal/errcode"
)

// Class is how failures of one class are retried.
type Class struct {
	Retryable          bool     `json:"retryable"`
	InitialInterval    Duration `json:"initialInterval"`
	BackoffCoefficient float64  `json:"backoffCoefficient"`
	MaximumInterval    Duration `json:"maximumInterval"`
	MaximumAttempts    int      `json:"maximumAttempts"` // counts the first try
}

// Policy is the whole table.
type Policy struct {
	Classes map[string]Class        `json:"classes"`
	Codes   map[errcode.Code]string `json:"codes"`
}

// Duration reads "1s", "2m" in JSON.
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"2s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Load reads and validates a policy file.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read retry policy: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("retry policy %s: %w", path, err)
	}
	return p, nil
}

// Parse reads a policy strictly and checks it is complete: unknown fields, unknown codes, unknown classes and a
// class without "retryable" are refused, every errorCode of the contract needs a class, and retryable classes need
// sane intervals. Each error names its line, so a typo fails the worker's start (or `badged admin retry-policy
// check`) instead of silently turning a class permanent.
func Parse(data []byte) (*Policy, error) {
	var file struct {
		Comment string                     `json:"_comment"`
		Classes map[string]json.RawMessage `json:"classes"`
		Codes   map[errcode.Code]string    `json:"codes"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("line %d: %w", lineAt(data, errOffset(data, err)), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("line %d: data after the policy object", lineAt(data, dec.InputOffset()))
	}
	if file.Classes == nil || file.Codes == nil {
		return nil, errors.New(`the policy needs both "classes" and "codes"`)
	}
	p := Policy{Classes: map[string]Class{}, Codes: file.Codes}
	var errs []error
	at := func(key string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("line %d: %s", lineOfKey(data, key), fmt.Sprintf(format, args...)))
	}
	for _, n := range slices.Sorted(maps.Keys(file.Classes)) {
		raw := file.Classes[n]
		var cf classFile
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cf); err != nil {
			// The class's own line, plus the lines inside its object up to the mistake.
			line := lineOfKey(data, n) + lineAt(raw, errOffset(raw, err)) - 1
			errs = append(errs, fmt.Errorf("line %d: class %s: %w", line, n, err))
			continue
		}
		if cf.Retryable == nil {
			at(n, `class %s: "retryable" is required (true or false)`, n)
			continue
		}
		c := Class{Retryable: *cf.Retryable, InitialInterval: cf.InitialInterval, BackoffCoefficient: cf.BackoffCoefficient,
			MaximumInterval: cf.MaximumInterval, MaximumAttempts: cf.MaximumAttempts}
		if c.Retryable && (c.InitialInterval <= 0 || c.MaximumInterval < c.InitialInterval || c.BackoffCoefficient < 1 || c.MaximumAttempts < 2) {
			at(n, "class %s: retryable classes need initialInterval > 0, maximumInterval >= initialInterval, backoffCoefficient >= 1, maximumAttempts >= 2", n)
		}
		p.Classes[n] = c
	}
	if c, ok := p.Classes[WebhookClass]; !ok || !c.Retryable {
		errs = append(errs, fmt.Errorf(`class %s is required and must be retryable: it times webhook deliveries`, WebhookClass))
	}
	for _, c := range errcode.All {
		if _, ok := p.Codes[c]; !ok {
			errs = append(errs, fmt.Errorf(`code %s has no class: add it under "codes"`, c))
		}
	}
	for _, c := range slices.Sorted(maps.Keys(p.Codes)) {
		if !slices.Contains(errcode.All, c) {
			at(string(c), "code %s is not an assertion errorCode", c)
		} else if _, ok := file.Classes[p.Codes[c]]; !ok {
			at(string(c), "code %s: unknown class %q", c, p.Codes[c])
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &p, nil
}

// classFile is Class as written in the file: "retryable" must be spelled out.
type classFile struct {
	Retryable          *bool    `json:"retryable"`
	InitialInterval    Duration `json:"initialInterval"`
	BackoffCoefficient float64  `json:"backoffCoefficient"`
	MaximumInterval    Duration `json:"maximumInterval"`
	MaximumAttempts    int      `json:"maximumAttempts"`
}

// errOffset is where in data a decode error happened, as near as encoding/json tells: the offset of a syntax or
// type error, the key of an unknown field (encoding/json has no type for that error, only its message), else 0.
func errOffset(data []byte, err error) int64 {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return syn.Offset
	case errors.As(err, &typ):
		return typ.Offset
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if name, err := strconv.Unquote(field); err == nil {
			quoted, _ := json.Marshal(name)
			return int64(max(bytes.Index(data, quoted), 0))
		}
	}
	return 0
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// lineOfKey is the line of the first object key spelled key, or 0 if none.
func lineOfKey(data []byte, key string) int {
	quoted, _ := json.Marshal(key)
	for i := 0; ; {
		j := bytes.Index(data[i:], quoted)
		if j < 0 {
			return 0
		}
		rest := bytes.TrimLeft(data[i+j+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return lineAt(data, int64(i+j))
		}
		i += j + len(quoted)
	}
}

// Format writes the effective table: one line per class, then each code with its class, sorted.
func (p *Policy) Format(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tRETRYABLE\tINITIAL\tBACKOFF\tMAXIMUM\tATTEMPTS")
	for _, n := range slices.Sorted(maps.Keys(p.Classes)) {
		c := p.Classes[n]
		if !c.Retryable {
			fmt.Fprintf(tw, "%s\tno\t-\t-\t-\t1\n", n)
			continue
		}
		fmt.Fprintf(tw, "%s\tyes\t%s\t%g\t%s\t%d\n", n, time.Duration(c.InitialInterval), c.BackoffCoefficient,
			time.Duration(c.MaximumInterval), c.MaximumAttempts)
	}
	fmt.Fprintln(tw, "\nCODE\tCLASS")
	for _, c := range slices.Sorted(maps.Keys(p.Codes)) {
		fmt.Fprintf(tw, "%s\t%s\n", c, p.Codes[c])
	}
	return tw.Flush()
}

// ClassOf returns the class name of a code; an unknown code is classed like UNKNOWN.
func (p *Policy) ClassOf(code errcode.Code) string {
	if c, ok := p.Codes[code]; ok {
		return c
	}
	return p.Codes[errcode.Unknown]
}

// Redrivable says whether a recipient that ended FAILED with code may be put back into the pipeline by an
// operator's re-drive: its class is retryable (the failure may pass on another try). The one place this is
// decided, for `badged admin issuance redrive`, the console and the workflow's redrive Update alike.
func (p *Policy) Redrivable(code errcode.Code) bool {
	return p.Classes[p.ClassOf(code)].Retryable
}

// WebhookClass is the class of webhook deliveries: no errorCode maps to it, a delivery attempt that fails (no
// answer, or not 2xx) is retried by its rule, and after its maximumAttempts the delivery has failed.
const WebhookClass = "webhook"

// Decide says whether a failure with code on the given attempt (1 = first try) is retried, and after what delay.
func (p *Policy) Decide(code errcode.Code, attempt int) (retry bool, delay time.Duration) {
	return p.DecideClass(p.ClassOf(code), attempt)
}

// DecideClass is Decide for a class by name.
func (p *Policy) DecideClass(class string, attempt int) (retry bool, delay time.Duration) {
	c := p.Classes[class]
	if !c.Retryable || attempt >= c.MaximumAttempts {
		return false, 0
	}
	d := float64(c.InitialInterval) * math.Pow(c.BackoffCoefficient, float64(attempt-1))
	if d > float64(c.MaximumInterval) {
		d = float64(c.MaximumInterval)
	}
	return true, time.Duration(d)
}

// Describe is one class's rule in one line, as the workflow details show the policy a step ran with:
// "remote: 5s ×2 up to 5m0s, 10 attempts", or "permanent: not retried".
func (p *Policy) Describe(class string) string {
	c := p.Classes[class]
	if !c.Retryable {
		return class + ": not retried"
	}
	return fmt.Sprintf("%s: %s ×%g up to %s, %d attempts", class, time.Duration(c.InitialInterval), c.BackoffCoefficient,
		time.Duration(c.MaximumInterval), c.MaximumAttempts)
}
