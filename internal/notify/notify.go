// Package notify tells a recipient that a badge was issued, by email (SMTP) or KakaoTalk (a provider's HTTP API),
// or into an outbox directory for the embedded default. Failures are *errcode.Error with the assertion errorCode.
//
// It imports internal/errcode and internal/safetext, never activities, api or temporal: the steps call it.
package notify

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/badged/badged/internal/errcode"
)

// Channel is a recipient's receiveType from the API contract.
type Channel string

// The channels of the contract.
const (
	Email     Channel = "EMAIL"
	KakaoTalk Channel = "KAKAOTALK"
)

// Notification is everything one message needs. The caller fills it from the assertion; AssertionID makes the
// message id, so a retried send of the same assertion carries the same id.
type Notification struct {
	AssertionID   string
	Channel       Channel
	Locale        string // "ko" (the default) or "en"
	RecipientName string
	Email         string // the address for Email
	Phone         string // the number for KakaoTalk
	BadgeName     string
	IssuerName    string
	// BadgeImage, when set, is embedded in the email and shown inline; otherwise BadgeImageURL is linked.
	BadgeImage     []byte
	BadgeImageType string // content type of BadgeImage, "image/png" when empty
	BadgeImageURL  string
	VerifyURL      string // the page where anyone can verify the credential
	// CertificateURL is the recipient's own PDF certificate (an unguessable link); empty leaves it out.
	CertificateURL string
	// ExpiresAt is when the credential expires (nil: never), shown in Location (nil: UTC).
	ExpiresAt *time.Time
	Location  *time.Location
	// FromName is the display name of the From header ("Org via badged"); the address stays the deployment's.
	// Empty keeps the configured From as it is.
	FromName string
	// Wallet, when set, is the wallet offer the issue notice carries (never a reminder's: the offer is the notice's).
	Wallet *WalletOffer
	// Reminder, when set, makes this the expiry reminder of the credential instead of its issue notice: other
	// templates (reminder.*) and a message id of its own per reminder (ReminderMessageID).
	Reminder *Reminder
}

// WalletOffer is the OpenID4VCI offer an issue notice carries, so the recipient can take the badge into a wallet.
type WalletOffer struct {
	// Link is the openid-credential-offer:// link, which opens a wallet app on the phone that reads the mail.
	Link string
	// PageURL is the https landing page of the offer (the QR code and the same link as a button): mail and chat
	// clients that drop custom-scheme links still open it, and a desktop reader scans its QR code with a phone.
	PageURL string
	// QR is the PNG QR code of Link, embedded in the email as an inline (CID) image.
	QR        []byte
	ExpiresAt time.Time
}

// Reminder is what an expiry reminder adds to a notification.
type Reminder struct {
	DaysBefore int // the policy's reminder (days before ExpiresAt) this message is: part of its message id
	// RenewURL is where the recipient asks for a renewal; empty (the organization does not renew) leaves it out.
	RenewURL string
}

// emailID is the Message-ID of n's email: MessageID, or ReminderMessageID for a reminder.
func (n Notification) emailID(domain string) string {
	if n.Reminder != nil {
		return ReminderMessageID(n.AssertionID, n.Reminder.DaysBefore, domain)
	}
	return MessageID(n.AssertionID, domain)
}

// kakaoID is the provider message id of n: KakaoMessageID, or its reminder variant.
func (n Notification) kakaoID() string {
	if n.Reminder != nil {
		return idLeft(n.AssertionID) + ".expiring-" + strconv.Itoa(n.Reminder.DaysBefore) + ".kakao"
	}
	return KakaoMessageID(n.AssertionID)
}

// ReminderMessageID is the Message-ID of the expiry reminder of an assertion sent daysBefore its expiry: the same
// on every attempt, distinct from the issue notice's and from the other reminders'.
func ReminderMessageID(assertionID string, daysBefore int, domain string) string {
	return idLeft(assertionID) + ".expiring-" + strconv.Itoa(daysBefore) + "@" + domain
}

// templatePrefix is "" for the issue notice, "reminder." for an expiry reminder.
func (n Notification) templatePrefix() string {
	if n.Reminder != nil {
		return "reminder."
	}
	return ""
}

// Receipt says what was sent.
type Receipt struct {
	Channel   Channel
	MessageID string // the Message-ID without angle brackets, or the id sent to the Kakao provider
}

// Sender delivers a notification over one channel. Send returns *errcode.Error on failure.
type Sender interface {
	Send(ctx context.Context, n Notification) (Receipt, error)
}

// Notifier picks the sender for a notification's channel.
type Notifier struct {
	Email Sender // used for Email; nil makes the channel unsupported
	Kakao Sender // used for KakaoTalk; nil makes the channel unsupported
}

// Close releases what the senders keep between messages (idle SMTP sessions).
func (nt *Notifier) Close() error {
	var errs []error
	for _, s := range []Sender{nt.Email, nt.Kakao} {
		if c, ok := s.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Notify sends n over its channel. It fails with NOTIFICATION_CHANNEL_UNSUPPORTED for another channel or one
// without a sender, NOTIFICATION_RECIPIENT_MISSING when the channel's address is empty, and otherwise with the
// sender's error.
func (nt *Notifier) Notify(ctx context.Context, n Notification) (Receipt, error) {
	var s Sender
	switch n.Channel {
	case Email:
		if strings.TrimSpace(n.Email) == "" {
			return Receipt{}, errcode.New(errcode.NotificationRecipientMissing, "recipient has no email address")
		}
		s = nt.Email
	case KakaoTalk:
		if strings.TrimSpace(n.Phone) == "" {
			return Receipt{}, errcode.New(errcode.NotificationRecipientMissing, "recipient has no phone number")
		}
		s = nt.Kakao
	}
	if s == nil {
		return Receipt{}, errcode.New(errcode.NotificationChannelUnsupported,
			"no sender for receiveType "+string(n.Channel))
	}
	if n.AssertionID == "" {
		return Receipt{}, errcode.New(errcode.NotificationDeliveryFailed, "notification has no assertion id")
	}
	return s.Send(ctx, n)
}
