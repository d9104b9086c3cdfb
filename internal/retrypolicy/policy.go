// Package retrypolicy is the table that maps every assertion errorCode to a failure class and every class to a
// retry decision. Operators tune it in a file (temporal/retry-policy.json by default) without a rebuild.
package retrypolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
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

// Parse reads a policy and checks it is complete: every errorCode of the contract has a class, every class used
// exists, and retryable classes have sane intervals. A typo fails the worker's start instead of a recipient.
func Parse(data []byte) (*Policy, error) {
	var p Policy
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&struct {
		Comment string                   `json:"_comment"`
		Classes *map[string]Class        `json:"classes"`
		Codes   *map[errcode.Code]string `json:"codes"`
	}{Classes: &p.Classes, Codes: &p.Codes}); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var errs []error
	known := map[errcode.Code]bool{}
	for _, c := range errcode.All {
		known[c] = true
		class, ok := p.Codes[c]
		if !ok {
			errs = append(errs, fmt.Errorf("code %s has no class", c))
			continue
		}
		if _, ok := p.Classes[class]; !ok {
			errs = append(errs, fmt.Errorf("code %s: unknown class %q", c, class))
		}
	}
	for c := range p.Codes {
		if !known[c] {
			errs = append(errs, fmt.Errorf("code %s is not an assertion errorCode", c))
		}
	}
	names := make([]string, 0, len(p.Classes))
	for n := range p.Classes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := p.Classes[n]
		if !c.Retryable {
			continue
		}
		if c.InitialInterval <= 0 || c.MaximumInterval < c.InitialInterval || c.BackoffCoefficient < 1 || c.MaximumAttempts < 2 {
			errs = append(errs, fmt.Errorf("class %s: retryable classes need initialInterval > 0, maximumInterval >= initialInterval, backoffCoefficient >= 1, maximumAttempts >= 2", n))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &p, nil
}

// ClassOf returns the class name of a code; an unknown code is classed like UNKNOWN.
func (p *Policy) ClassOf(code errcode.Code) string {
	if c, ok := p.Codes[code]; ok {
		return c
	}
	return p.Codes[errcode.Unknown]
}

// Decide says whether a failure with code on the given attempt (1 = first try) is retried, and after what delay.
func (p *Policy) Decide(code errcode.Code, attempt int) (retry bool, delay time.Duration) {
	c := p.Classes[p.ClassOf(code)]
	if !c.Retryable || attempt >= c.MaximumAttempts {
		return false, 0
	}
	d := float64(c.InitialInterval) * math.Pow(c.BackoffCoefficient, float64(attempt-1))
	if d > float64(c.MaximumInterval) {
		d = float64(c.MaximumInterval)
	}
	return true, time.Duration(d)
}
