package notify_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	require.NoError(t, err)
	subj, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	require.NoError(t, err)
	p := parsedMail{Header: m.Header, Subject: subj, Parts: map[string][]byte{}, ContentIDs: map[string]string{}}
	walkPart(t, &p, m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), "", m.Body)
	return p
}

func walkPart(t testing.TB, p *parsedMail, contentType, encoding, contentID string, body io.Reader) {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(contentType)
	require.NoError(t, err)
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextRawPart()
			if err == io.EOF {
				return
			}
			require.NoError(t, err)
			walkPart(t, p, part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"),
				part.Header.Get("Content-Id"), part)
		}
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	data, err := io.ReadAll(body)
	require.NoError(t, err)
	p.Parts[mediaType] = data
	if contentID != "" {
		p.ContentIDs[strings.Trim(contentID, "<>")] = mediaType
	}
}
