package smtptest

import (
	"net/smtp"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJournal_AnotherReaderSeesWhatWasAccepted sends through a server with a journal, as the cluster's SMTP process
// runs, and reads the journal as a test in another process does; a line cut short by a kill -9 is dropped when
// the server starts again and later messages follow it.
func TestJournal_AnotherReaderSeesWhatWasAccepted(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "messages.jsonl")
	send := func(s *Server, to, id string) {
		t.Helper()
		msg := "From: a@example.com\r\nTo: " + to + "\r\nMessage-ID: <" + id + ">\r\nSubject: hi\r\n\r\nbody\r\n"
		require.NoError(t, smtp.SendMail(s.Addr(), nil, "a@example.com", []string{to}, []byte(msg)))
	}
	s, err := Listen("127.0.0.1:0", Options{NoTLS: true, Journal: journal})
	require.NoError(t, err)
	send(s, "one@example.com", "m1@test")
	require.NoError(t, s.Close())

	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"From":"a@example.com","To":["cut@exa`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	msgs, err := ReadJournal(journal)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "a message being written is not accepted yet")

	s, err = Listen("127.0.0.1:0", Options{NoTLS: true, Journal: journal})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	send(s, "two@example.com", "m2@test")
	msgs, err = ReadJournal(journal)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, []string{"one@example.com"}, msgs[0].To)
	require.Equal(t, "<m1@test>", msgs[0].MessageID)
	require.Equal(t, []string{"two@example.com"}, msgs[1].To)
	require.Equal(t, "<m2@test>", msgs[1].MessageID)
	require.Equal(t, s.Messages(), msgs[1:], "the journal holds what the server recorded")
}
