package safetext

import (
	"strings"
	"testing"
)

func TestProblem(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		nameWant  string // substring of the Name problem, "" for none
		multiWant string // substring of the Multiline problem, "" for none
	}{
		{"plain", "Alice Park", "", ""},
		{"hangul and quotes", `김 "민수, Jr." Lee`, "", ""},
		{"angle brackets", `x" <a@evil.test> (`, "", ""},
		{"marks and joiners stay", "Sara\u200f \u200d👩\u200d💻", "", ""},
		{"LF", "Alice\nBcc: x@evil.test", "U+000A at character 6", ""},
		{"CR", "Alice\rX", "no line breaks (U+000D", ""},
		{"line separator", "a\u2028b", "U+2028", ""},
		{"tab", "a\tb", "control characters (U+0009", ""},
		{"bell", "a\ab", "U+0007", "U+0007"},
		{"escape", "a\x1b[31mred", "U+001B", "U+001B"},
		{"DEL", "a\x7fb", "U+007F", "U+007F"},
		{"NEL", "a\u0085b", "U+0085", "U+0085"},
		{"C1 CSI", "a\u009bb", "U+009B", "U+009B"},
		{"vertical tab", "a\vb", "U+000B", "U+000B"},
		{"RLO", "Alice\u202e tneduts", "bidirectional override, embedding or isolate characters (U+202E at character 6)", ""},
		{"LRE", "\u202aA", "U+202A", ""},
		{"PDF", "A\u202c", "U+202C", ""},
		{"FSI", "A\u2068B\u2069", "U+2068", ""},
		{"PDI", "A\u2069", "U+2069", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				kind Kind
				want string
			}{{Name, tt.nameWant}, {Multiline, tt.multiWant}} {
				got := Problem(tt.in, c.kind)
				if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
					t.Errorf("Problem(%q, %d) = %q, want %q", tt.in, c.kind, got, c.want)
				}
			}
		})
	}
}

func TestDisplay(t *testing.T) {
	for in, want := range map[string]string{
		"Alice Park":             "Alice Park",
		`김 "민수, Jr." Lee`:        `김 "민수, Jr." Lee`,
		"Alice\r\nBcc: x@e.test": "Alice  Bcc: x@e.test",
		"Alice\u202e tneduts":    "Alice tneduts",
		"\u2067שלום\u2069 Kim":   "שלום Kim",
		"tab\there\x1b[0m\n":     "tab here [0m",
	} {
		if got := Display(in); got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
		if got := Display(in); Problem(got, Name) != "" {
			t.Errorf("Display(%q) = %q still breaks the Name rule: %s", in, got, Problem(got, Name))
		}
	}
}
