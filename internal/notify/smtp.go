package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

	"github.com/badged/badged/internal/errcode"
)

// TLSPolicy says whether the SMTP sender upgrades the connection with STARTTLS.
type TLSPolicy string

// The STARTTLS policies.
const (
	TLSMandatory     TLSPolicy = "mandatory"     // fail unless the server offers STARTTLS and the handshake succeeds
	TLSOpportunistic TLSPolicy = "opportunistic" // use STARTTLS when offered, send in clear otherwise
	TLSNone          TLSPolicy = "none"          // never use STARTTLS
)

// AuthMechanism is the SMTP AUTH mechanism.
type AuthMechanism string

// The supported AUTH mechanisms. Both send the password only over TLS (or to localhost).
const (
	AuthNone  AuthMechanism = ""
	AuthPlain AuthMechanism = "PLAIN"
	AuthLogin AuthMechanism = "LOGIN"
)

// SMTPConfig configures the SMTP sender.
type SMTPConfig struct {
	Host     string
	Port     int       // 587 when zero
	TLS      TLSPolicy // TLSMandatory when empty
	Auth     AuthMechanism
	Username string
	Password string
	// From is the sender, e.g. "Badged <noreply@example.com>".
	From string
	// MessageIDDomain is the right side of every Message-ID; the domain of From when empty.
	MessageIDDomain string
	// Timeout bounds the connection and each SMTP command; 30s when zero.
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (for example a private CA); ServerName defaults to Host.
	TLSConfig *tls.Config
	// HELO is the name sent in EHLO; the machine's host name when empty.
	HELO string
}

// SMTP sends email notifications over SMTP. It is safe for concurrent use: each Send has a session of its own,
// a new one or one a previous Send left idle (smtppool.go).
type SMTP struct {
	client   *mail.Client
	from     string
	domain   string
	now      func() time.Time
	sessions sessionPool
}

var _ Sender = (*SMTP)(nil)

// NewSMTP checks the configuration and returns the sender. It does not connect.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, errors.New("smtp: host is required")
	}
	if cfg.From == "" {
		return nil, errors.New("smtp: from address is required")
	}
	domain := cfg.MessageIDDomain
	if domain == "" {
		domain = domainOf(cfg.From)
	}
	if domain == "" {
		return nil, fmt.Errorf("smtp: cannot take a message id domain from %q", cfg.From)
	}
	port := cfg.Port
	if port == 0 {
		port = 587
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	var policy mail.TLSPolicy
	switch cfg.TLS {
	case TLSMandatory, "":
		policy = mail.TLSMandatory
	case TLSOpportunistic:
		policy = mail.TLSOpportunistic
	case TLSNone:
		policy = mail.NoTLS
	default:
		return nil, fmt.Errorf("smtp: unknown tls policy %q", cfg.TLS)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLSConfig != nil {
		tlsConfig = cfg.TLSConfig.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = cfg.Host
	}
	opts := []mail.Option{
		mail.WithPort(port),
		mail.WithTimeout(timeout),
		mail.WithTLSPolicy(policy),
		mail.WithTLSConfig(tlsConfig),
	}
	if cfg.HELO != "" {
		opts = append(opts, mail.WithHELO(cfg.HELO))
	}
	switch strings.ToUpper(string(cfg.Auth)) {
	case "":
	case string(AuthPlain):
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthPlain),
			mail.WithUsername(cfg.Username), mail.WithPassword(cfg.Password))
	case string(AuthLogin):
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthLogin),
			mail.WithUsername(cfg.Username), mail.WithPassword(cfg.Password))
	default:
		return nil, fmt.Errorf("smtp: unsupported auth mechanism %q", cfg.Auth)
	}
	client, err := mail.NewClient(cfg.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp: %w", err)
	}
	return &SMTP{client: client, from: cfg.From, domain: domain, now: time.Now}, nil
}

// Send renders the email for n and delivers it in one SMTP transaction. The Message-ID is MessageID(n.AssertionID,
// domain) on every attempt. Errors are *errcode.Error; see classifySMTP for the mapping.
func (s *SMTP) Send(ctx context.Context, n Notification) (Receipt, error) {
	msg, err := buildEmail(n, s.from, s.domain, s.now())
	if err != nil {
		return Receipt{}, buildError(err)
	}
	if err := s.deliver(ctx, msg); err != nil {
		return Receipt{}, err
	}
	return Receipt{Channel: Email, MessageID: n.emailID(s.domain)}, nil
}

// deliver sends msg in one SMTP transaction, on an idle session or a new one. Errors are *errcode.Error.
func (s *SMTP) deliver(ctx context.Context, msg *mail.Msg) error {
	var err error
	conn, reused := s.sessions.get(s.now()), true
	if conn == nil {
		if conn, err = s.dial(ctx); err != nil {
			return err
		}
		reused = false
	}
	sendErr := s.sendOn(ctx, conn, msg)
	var se *mail.SendError
	if !msg.IsDelivered() && reused && errors.As(sendErr, &se) && se.Reason == mail.ErrConnCheck {
		// The idle session died (its NOOP failed) before the message was started: a new one is safe to try.
		_ = conn.Close()
		if conn, err = s.dial(ctx); err != nil {
			return err
		}
		sendErr = s.sendOn(ctx, conn, msg)
	}
	if msg.IsDelivered() {
		if sendErr == nil && ctx.Err() == nil {
			s.sessions.put(conn, s.now()) // RSET succeeded: the session is clean for the next message
		} else {
			_ = conn.Close() // after the message is accepted, a failing RSET changes nothing for the recipient
		}
		return nil
	}
	_ = conn.Close()
	if sendErr == nil {
		sendErr = errors.New("message not accepted")
	}
	return classifySMTP(ctx, stageSend, sendErr)
}

// dial opens a new session: connection, greeting, EHLO, STARTTLS and AUTH as configured.
func (s *SMTP) dial(ctx context.Context) (*smtp.Client, error) {
	conn, err := s.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return nil, classifySMTP(ctx, stageConnect, err)
	}
	return conn, nil
}

// sendOn sends one message in one transaction of the session. go-mail honours the context only while dialling;
// closing the connection when ctx ends makes a pending command fail at once instead of waiting for the timeout.
func (s *SMTP) sendOn(ctx context.Context, conn *smtp.Client, msg *mail.Msg) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	return s.client.SendWithSMTPClient(conn, msg)
}

// Close ends the sessions kept for reuse. Sends after Close open (and close) sessions of their own.
func (s *SMTP) Close() error {
	s.sessions.close()
	return nil
}

type smtpStage int

const (
	stageConnect smtpStage = iota // dial, greeting, EHLO, STARTTLS, AUTH
	stageSend                     // MAIL, RCPT, DATA and the message itself
)

// classifySMTP maps an SMTP failure to an assertion errorCode:
//   - no reply at all (connection refused or dropped, TLS failure, timeout) or any 4xx reply → EMAIL_SERVER_ERROR,
//     the retryable class;
//   - 5xx to RCPT TO → REJECTED_EMAIL: the server refuses the address;
//   - 5xx to the end of DATA (the message itself, e.g. 550/554) → BOUNCED_EMAIL;
//   - anything else (5xx to EHLO, AUTH, MAIL FROM or the DATA command) → EMAIL_SEND_FAILED.
//
// A recipient address that does not parse never reaches the server: Send answers REJECTED_EMAIL for it.
//
// It reads go-mail's *mail.SendError (stage and reply code) and *textproto.Error for the connect stage, not the
// error text.
func classifySMTP(ctx context.Context, stage smtpStage, err error) error {
	if ctx.Err() != nil {
		return errcode.Wrap(errcode.EmailServerError, "smtp send interrupted", errors.Join(ctx.Err(), err))
	}
	var se *mail.SendError
	if errors.As(err, &se) {
		code := se.ErrorCode()
		switch {
		case code >= 400 && code < 500:
			return errcode.Wrap(errcode.EmailServerError, "smtp temporary failure", err)
		case code >= 500 && se.Reason == mail.ErrSMTPRcptTo:
			return errcode.Wrap(errcode.RejectedEmail, "smtp recipient rejected", err)
		case code >= 500 && (se.Reason == mail.ErrSMTPDataClose || se.Reason == mail.ErrWriteContent):
			return errcode.Wrap(errcode.BouncedEmail, "smtp message rejected", err)
		case code >= 500:
			return errcode.Wrap(errcode.EmailSendFailed, "smtp refused", err)
		}
		// No reply code: the command never got an answer, so the connection broke.
		switch se.Reason {
		case mail.ErrGetSender, mail.ErrGetRcpts, mail.ErrNoUnencoded:
			return errcode.Wrap(errcode.EmailSendFailed, "smtp message invalid", err)
		}
		return errcode.Wrap(errcode.EmailServerError, "smtp connection failed", err)
	}
	if code := replyCode(err); code != 0 {
		if code >= 400 && code < 500 {
			return errcode.Wrap(errcode.EmailServerError, "smtp temporary failure", err)
		}
		return errcode.Wrap(errcode.EmailSendFailed, "smtp refused", err)
	}
	if errors.Is(err, smtp.ErrUnencrypted) || errors.Is(err, smtp.ErrWrongHostname) ||
		errors.Is(err, mail.ErrPlainAuthNotSupported) || errors.Is(err, mail.ErrLoginAuthNotSupported) {
		// The client will not send the password this way: a configuration error that a retry cannot fix.
		return errcode.Wrap(errcode.EmailSendFailed, "smtp auth refused by client", err)
	}
	if stage == stageConnect {
		// Refused or dropped connection, timeout, TLS handshake or certificate failure, STARTTLS missing under the
		// mandatory policy: the server side is not usable now.
		return errcode.Wrap(errcode.EmailServerError, "smtp connect", err)
	}
	return errcode.Wrap(errcode.NotificationDeliveryFailed, "smtp send", err)
}

// replyCode returns the SMTP reply code carried by err, or 0 when the server did not answer.
func replyCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}
