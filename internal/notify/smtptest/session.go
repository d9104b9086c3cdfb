package smtptest

// One client connection: the SMTP session go-smtp drives, with AUTH PLAIN and LOGIN and the faults set on the server.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/mail"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

type backend struct{ s *Server }

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	if err := b.s.fault(StageConnect, c); err != nil {
		return nil, err
	}
	b.s.mu.Lock()
	b.s.conns[c.Conn().RemoteAddr().String()] = c
	b.s.mu.Unlock()
	return &session{s: b.s, conn: c}, nil
}

type session struct {
	s        *Server
	conn     *smtp.Conn
	authUser string
	from     string
	to       []string
}

func (ss *session) AuthMechanisms() []string {
	if ss.s.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain, sasl.Login}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	check := func(username, password string) error {
		if username != ss.s.opts.Username || password != ss.s.opts.Password {
			return smtp.ErrAuthFailed
		}
		ss.authUser = username
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(identity, username, password string) error {
			if identity != "" && identity != username {
				return smtp.ErrAuthFailed
			}
			return check(username, password)
		}), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.opts.Username != "" && ss.authUser == "" {
		return smtp.ErrAuthRequired
	}
	if err := ss.s.fault(StageMail, ss.conn); err != nil {
		return err
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := ss.s.fault(StageRcpt, ss.conn); err != nil {
		return err
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := ss.s.fault(StageData, ss.conn); err != nil {
		return err
	}
	m := Message{From: ss.from, To: ss.to, Data: data, AuthUser: ss.authUser}
	_, m.TLS = ss.conn.TLSConnectionState()
	if parsed, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		m.MessageID = parsed.Header.Get("Message-ID")
	}
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	if ss.s.journal != nil {
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		if _, err := ss.s.journal.Write(append(line, '\n')); err != nil {
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCodeNotSet, Message: "journal: " + err.Error()}
		}
	}
	ss.s.messages = append(ss.s.messages, m)
	return nil
}

func (ss *session) Reset() {
	ss.from = ""
	ss.to = nil
}

func (ss *session) Logout() error { return nil }

// loginServer is the server side of the LOGIN mechanism, which go-sasl implements only for clients: it asks for
// the user name, then the password.
type loginServer struct {
	check    func(username, password string) error
	username string
	step     int
}

func (l *loginServer) Next(response []byte) ([]byte, bool, error) {
	switch l.step {
	case 0:
		l.step++
		if len(response) > 0 { // the user name came with the AUTH command
			l.username = string(response)
			l.step++
			return []byte("Password:"), false, nil
		}
		return []byte("Username:"), false, nil
	case 1:
		l.username = string(response)
		l.step++
		return []byte("Password:"), false, nil
	case 2:
		l.step++
		return nil, true, l.check(l.username, string(response))
	}
	return nil, true, errors.New("unexpected LOGIN response")
}
