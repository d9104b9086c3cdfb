package notify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/badged/badged/internal/errcode"
)

// Outbox is the sender of the embedded default: instead of delivering, it writes each message as a .eml file into
// a directory, where the person running the service opens it with a mail client or a text editor. The file name
// comes from the message id, so a retried send overwrites the file instead of adding one. It takes both channels;
// a KakaoTalk message becomes a plain-text .eml addressed to the phone number in a header.
type Outbox struct {
	dir    string
	from   string
	domain string
	now    func() time.Time
}

var _ Sender = (*Outbox)(nil)

// NewOutbox returns an outbox writing into dir (created when missing), with from as the sender of the emails.
func NewOutbox(dir, from string) (*Outbox, error) {
	domain := domainOf(from)
	if domain == "" {
		return nil, fmt.Errorf("outbox: cannot take a message id domain from %q", from)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create outbox dir: %w", err)
	}
	return &Outbox{dir: dir, from: from, domain: domain, now: time.Now}, nil
}

// Path returns the file that holds the message with the id.
func (o *Outbox) Path(messageID string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.@", r) {
			return r
		}
		return '_'
	}, messageID)
	return filepath.Join(o.dir, name+".eml")
}

// Send writes the message for n. Write failures are NOTIFICATION_DELIVERY_FAILED.
func (o *Outbox) Send(ctx context.Context, n Notification) (Receipt, error) {
	if err := ctx.Err(); err != nil {
		return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "outbox", err)
	}
	var buf bytes.Buffer
	var r Receipt
	switch n.Channel {
	case KakaoTalk:
		text, err := renderKakao(n)
		if err != nil {
			return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "render kakao message", err)
		}
		r = Receipt{Channel: KakaoTalk, MessageID: n.kakaoID()}
		fmt.Fprintf(&buf, "Message-ID: <%s@%s>\r\n", r.MessageID, o.domain)
		fmt.Fprintf(&buf, "Date: %s\r\n", o.now().Format(time.RFC1123Z))
		fmt.Fprintf(&buf, "From: %s\r\n", o.from)
		fmt.Fprintf(&buf, "Subject: KakaoTalk %s\r\n", normalizePhone(n.Phone))
		fmt.Fprintf(&buf, "%s: %s\r\n", AssertionHeader, n.AssertionID)
		fmt.Fprintf(&buf, "X-Badged-Channel: %s\r\nX-Badged-Phone: %s\r\n", KakaoTalk, normalizePhone(n.Phone))
		buf.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n" +
			"Content-Transfer-Encoding: 8bit\r\n\r\n")
		buf.WriteString(strings.ReplaceAll(text, "\n", "\r\n"))
	default:
		msg, err := buildEmail(n, o.from, o.domain, o.now())
		if err != nil {
			return Receipt{}, buildError(err)
		}
		if _, err := msg.WriteTo(&buf); err != nil {
			return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "write email", err)
		}
		r = Receipt{Channel: Email, MessageID: n.emailID(o.domain)}
	}
	if err := writeFileAtomic(o.Path(r.MessageID), buf.Bytes()); err != nil {
		return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "write outbox file", err)
	}
	return r, nil
}

// writeFileAtomic writes through a temporary file and a rename, so a reader never sees half a message.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
