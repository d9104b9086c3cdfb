package notify_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

// A stream of messages reuses sessions: one TLS handshake and AUTH for many messages, each still its own
// transaction with its own Message-ID, over TLS and authenticated.
func TestSMTPReusesSessions(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	for i := range 5 {
		n := koreanNotification()
		n.AssertionID = []string{"a1", "a2", "a3", "a4", "a5"}[i]
		_, err := s.Send(context.Background(), n)
		require.NoError(t, err)
	}
	require.Equal(t, 1, srv.Connections(), "one session for five messages sent one after another")
	msgs := srv.Messages()
	require.Len(t, msgs, 5)
	seen := map[string]bool{}
	for _, m := range msgs {
		require.True(t, m.TLS)
		require.Equal(t, "mailer", m.AuthUser)
		seen[m.MessageID] = true
	}
	require.Len(t, seen, 5)
}

// Concurrent sends each get a session of their own; afterwards they are reused.
func TestSMTPConcurrentSessions(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	cfg := smtpConfig(srv)
	cfg.Auth = notify.AuthNone
	s := mustSMTP(t, cfg)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				_, err := s.Send(context.Background(), koreanNotification())
				require.NoError(t, err)
			}
		})
	}
	wg.Wait()
	require.Len(t, srv.Messages(), 20)
	require.LessOrEqual(t, srv.Connections(), 8, "sessions are reused, not opened per message")
}

// An idle session the relay dropped is noticed before the message starts (NOOP), and the message goes out on a
// new session, once.
func TestSMTPIdleSessionDropped(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	cfg := smtpConfig(srv)
	cfg.Auth = notify.AuthNone
	s := mustSMTP(t, cfg)
	_, err := s.Send(context.Background(), koreanNotification())
	require.NoError(t, err)
	srv.DropConnections()
	n := koreanNotification()
	n.AssertionID = "after-drop"
	_, err = s.Send(context.Background(), n)
	require.NoError(t, err)
	require.Len(t, srv.Messages(), 2)
	require.Equal(t, 2, srv.Connections())
}

// A failed transaction does not leave its session for the next message: the next one starts clean.
func TestSMTPFailedSessionNotReused(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	cfg := smtpConfig(srv)
	cfg.Auth = notify.AuthNone
	s := mustSMTP(t, cfg)
	srv.SetFault(smtptest.StageRcpt, smtptest.Fault{Code: 550})
	_, err := s.Send(context.Background(), koreanNotification())
	require.Error(t, err)
	srv.ClearFaults()
	_, err = s.Send(context.Background(), koreanNotification())
	require.NoError(t, err)
	require.Equal(t, 2, srv.Connections())
	require.NoError(t, s.Close())
}
