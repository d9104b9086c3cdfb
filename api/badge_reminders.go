package api

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Expiry reminders (v3 extension): a badge's expiryReminders is a list of days before an assertion's validUntil
// at which its recipient is reminded (workflows/remind.go sends them). Bounded so that a sweep reads at most a
// year ahead and a recipient gets at most a handful of messages per credential.
const (
	maxExpiryReminders = 5
	maxReminderDays    = 365
)

// readExpiryReminders reads v3's expiryReminders: distinct whole days from 1 to maxReminderDays, at most
// maxExpiryReminders; [] clears the policy. Stored and shown in descending order. v2 does not know the field
// (readBadgeInput's only() refuses it there).
func readExpiryReminders(o *object) opt[[]int32] {
	const name = "expiryReminders"
	items, ok := o.array(name)
	if !ok {
		return opt[[]int32]{}
	}
	if len(items) > maxExpiryReminders {
		o.fail(name, fmt.Sprintf("must have at most %d items", maxExpiryReminders))
		return opt[[]int32]{}
	}
	out := make([]int32, 0, len(items))
	good := true
	for i, raw := range items {
		field := fmt.Sprintf("%s[%d]", name, i)
		item := &object{raw: map[string]json.RawMessage{field: raw}, prefix: o.prefix, errs: o.errs, v: o.v, loc: o.loc}
		d := item.integer(field, false, 1, maxReminderDays)
		if !d.Set {
			good = false
			continue
		}
		if slices.Contains(out, int32(d.Val)) {
			o.fail(field, fmt.Sprintf("duplicate day %d", d.Val))
			good = false
			continue
		}
		out = append(out, int32(d.Val))
	}
	if !good {
		return opt[[]int32]{}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return opt[[]int32]{Set: true, Val: out}
}

// expiryRemindersOf is the response's expiryReminders: v3 only ([] without a policy), nil (left out) in v2.
func expiryRemindersOf(v version, days []int32) *[]int32 {
	if v != v3 {
		return nil
	}
	out := append([]int32{}, days...)
	return &out
}
