package notify_test

import (
	"mime"
	"net/mail"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/notify/smtptest"
)

// parsedMail is a received message taken apart the way a mail client would.
type parsedMail struct {
	Header mail.Header
	// Subject is the decoded Subject header.
	Subject string
	// Parts maps each leaf part's media type to its decoded body; ContentIDs maps Content-ID to media type.
	Parts      map[string][]byte
	ContentIDs map[string]string
}

func mustParseMail(t testing.TB, raw []byte) parsedMail {
	t.Helper()
	h, parts, err := smtptest.Parts(raw)
	require.NoError(t, err)
	subj, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	require.NoError(t, err)
	p := parsedMail{Header: h, Subject: subj, Parts: map[string][]byte{}, ContentIDs: map[string]string{}}
	for _, part := range parts {
		p.Parts[part.MediaType] = part.Body
		if part.ContentID != "" {
			p.ContentIDs[part.ContentID] = part.MediaType
		}
	}
	return p
}
