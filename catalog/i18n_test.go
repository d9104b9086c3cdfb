package catalog

import (
	"maps"
	"slices"
	"testing"

	"github.com/badged/badged/internal/pagekit"
)

// TestMessages_SameKeys: every language has every message.
func TestMessages_SameKeys(t *testing.T) {
	en := slices.Sorted(maps.Keys(messages[pagekit.LangEN]))
	for _, lang := range pagekit.Langs {
		if got := slices.Sorted(maps.Keys(messages[lang])); !slices.Equal(got, en) {
			t.Errorf("%s has keys %v, English %v", lang, got, en)
		}
	}
}
