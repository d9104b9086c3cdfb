package smtptest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
)

// Part is one leaf part of a received message, its body decoded from its transfer encoding.
type Part struct {
	MediaType string
	ContentID string // without the angle brackets; "" when the part has none
	Body      []byte
}

// Parts takes a received message apart the way a mail client would: its header and every leaf part, in order,
// multiparts opened at any depth.
func Parts(raw []byte) (mail.Header, []Part, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	var parts []Part
	err = walk(&parts, m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), "", m.Body)
	return m.Header, parts, err
}

func walk(parts *[]Part, contentType, encoding, contentID string, body io.Reader) error {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("content type %q: %w", contentType, err)
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walk(parts, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Id"), p); err != nil {
				return err
			}
		}
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("%s part: %w", mediaType, err)
	}
	*parts = append(*parts, Part{MediaType: mediaType, ContentID: strings.Trim(contentID, "<>"), Body: data})
	return nil
}
