package notify_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/notify"
)

// A letter reaches the outbox of `make run` as one .eml named by its id, and a malformed address never gets one.
func TestOutbox_SendLetter(t *testing.T) {
	dir := t.TempDir()
	o, err := notify.NewOutbox(dir, "Badged <noreply@badged.example>")
	require.NoError(t, err)
	l := notify.Letter{To: "jane@example.org", Subject: "로그인 링크", Text: "https://b.example/earner/sign-in/abc\n", ID: "signin.x1"}
	require.NoError(t, o.SendLetter(context.Background(), l))
	data, err := os.ReadFile(o.Path("signin.x1@badged.example"))
	require.NoError(t, err)
	require.Contains(t, string(data), "To: <jane@example.org>")
	require.True(t, strings.Contains(string(data), "sign-in/abc"))

	l.To = "Jane <jane@example.org>\r\nBcc: x@y.z"
	require.Error(t, o.SendLetter(context.Background(), l))
}
