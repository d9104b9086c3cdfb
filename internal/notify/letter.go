package notify

import (
	"bytes"
	"context"
	"fmt"
	netmail "net/mail"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/badged/badged/internal/errcode"
)

// Letter is a plain-text email about no assertion: a sign-in link, an invitation (internal/signin). It goes through
// the same senders as the notifications (SMTP, or the outbox of the embedded default).
type Letter struct {
	To      string // a bare address
	Subject string
	Text    string
	// ID is the left part of the Message-ID (and the outbox file's name); unique per letter.
	ID string
}

// LetterSender sends letters; *SMTP and *Outbox are both.
type LetterSender interface {
	SendLetter(ctx context.Context, l Letter) error
}

var (
	_ LetterSender = (*SMTP)(nil)
	_ LetterSender = (*Outbox)(nil)
)

// letterMsg makes the MIME message of l: one text/plain part.
func letterMsg(l Letter, from, domain string, now time.Time) (*mail.Msg, error) {
	m := mail.NewMsg(mail.WithCharset(mail.CharsetUTF8), mail.WithEncoding(mail.EncodingQP))
	if err := setFrom(m, from, ""); err != nil {
		return nil, err
	}
	to, err := netmail.ParseAddress(l.To)
	if err != nil || to.Name != "" || l.ID == "" {
		return nil, fmt.Errorf("%w %q", errBadRecipient, l.To)
	}
	setTo(m, to)
	setSubject(m, l.Subject)
	m.SetMessageIDWithValue(l.ID + "@" + domain)
	m.SetDateWithValue(now)
	m.SetBodyString(mail.TypeTextPlain, l.Text)
	return m, nil
}

// SendLetter delivers l over SMTP. Errors are *errcode.Error, classified as Send's.
func (s *SMTP) SendLetter(ctx context.Context, l Letter) error {
	msg, err := letterMsg(l, s.from, s.domain, s.now())
	if err != nil {
		return buildError(err)
	}
	return s.deliver(ctx, msg)
}

// SendLetter writes l into the outbox as <ID@domain>.eml.
func (o *Outbox) SendLetter(ctx context.Context, l Letter) error {
	if err := ctx.Err(); err != nil {
		return errcode.Wrap(errcode.NotificationDeliveryFailed, "outbox", err)
	}
	msg, err := letterMsg(l, o.from, o.domain, o.now())
	if err != nil {
		return buildError(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return errcode.Wrap(errcode.NotificationDeliveryFailed, "write email", err)
	}
	if err := writeFileAtomic(o.Path(l.ID+"@"+o.domain), buf.Bytes()); err != nil {
		return errcode.Wrap(errcode.NotificationDeliveryFailed, "write outbox file", err)
	}
	return nil
}
