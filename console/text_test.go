package console

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestText_SameKeys: every word of the console exists in both languages.
func TestText_SameKeys(t *testing.T) {
	for k := range text["en"] {
		require.NotEmpty(t, text["ko"][k], "ko lacks %q", k)
	}
	for k := range text["ko"] {
		require.NotEmpty(t, text["en"][k], "en lacks %q", k)
	}
}
