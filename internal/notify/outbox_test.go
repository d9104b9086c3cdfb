package notify_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/notify"
)

func TestOutboxEmail(t *testing.T) {
	dir := t.TempDir()
	o, err := notify.NewOutbox(dir, "Badged <noreply@badged.local>")
	require.NoError(t, err)
	n := koreanNotification()

	var first notify.Receipt
	for i := range 3 { // a retried send overwrites the same file
		r, err := o.Send(context.Background(), n)
		require.NoError(t, err)
		if i == 0 {
			first = r
		}
		require.Equal(t, first, r)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, o.Path(first.MessageID), filepath.Join(dir, entries[0].Name()))
	require.Equal(t, "0b4c1c2e-7f1a-4c55-9d7e-1f2a3b4c5d6e.badge@badged.local.eml", entries[0].Name())

	raw, err := os.ReadFile(o.Path(first.MessageID))
	require.NoError(t, err)
	m := mustParseMail(t, raw)
	require.Equal(t, "<"+first.MessageID+">", m.Header.Get("Message-ID"))
	require.Contains(t, string(m.Parts["text/plain"]), "김민지님")
	require.Contains(t, string(m.Parts["text/html"]), "김민지님")
	require.Equal(t, pngBadge, m.Parts["image/png"])
}

func TestOutboxKakao(t *testing.T) {
	dir := t.TempDir()
	o, err := notify.NewOutbox(dir, "noreply@badged.local")
	require.NoError(t, err)
	r, err := o.Send(context.Background(), kakaoNotification())
	require.NoError(t, err)
	require.Equal(t, notify.KakaoTalk, r.Channel)
	raw, err := os.ReadFile(o.Path(r.MessageID))
	require.NoError(t, err)
	m := mustParseMail(t, raw)
	require.Equal(t, "01012345678", m.Header.Get("X-Badged-Phone"))
	require.Equal(t, "0b4c1c2e-7f1a-4c55-9d7e-1f2a3b4c5d6e", m.Header.Get(notify.AssertionHeader))
	require.Contains(t, string(m.Parts["text/plain"]), `"데이터 분석 기초" 배지를 발급했습니다`)
}

func TestOutboxHostileAssertionID(t *testing.T) {
	dir := t.TempDir()
	o, err := notify.NewOutbox(dir, "noreply@badged.local")
	require.NoError(t, err)
	n := koreanNotification()
	n.AssertionID = "../../etc/passwd"
	r, err := o.Send(context.Background(), n)
	require.NoError(t, err)
	require.Equal(t, dir, filepath.Dir(o.Path(r.MessageID)), "the file stays in the outbox")
	require.NotContains(t, r.MessageID, "/")
}
