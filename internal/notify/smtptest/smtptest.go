// Package smtptest runs a real SMTP server in-process (github.com/emersion/go-smtp) on a loopback port for tests:
// STARTTLS with a self-signed certificate, AUTH PLAIN and LOGIN, a record of every accepted message (optionally
// journaled to a file, for a server that runs as a process of its own), and faults on demand (an SMTP error reply
// or a dropped connection at a chosen stage).
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/mail"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Stage is the point of an SMTP transaction where a fault applies.
type Stage string

// The stages a fault can be set on.
const (
	StageConnect Stage = "CONNECT" // the EHLO reply, the first the client can fail on
	StageMail    Stage = "MAIL"    // the MAIL FROM reply
	StageRcpt    Stage = "RCPT"    // the RCPT TO reply
	StageData    Stage = "DATA"    // the reply after the message content, when the server accepts or refuses it
)

// Fault is what the server does at a stage instead of accepting: answer Code with Message, or, when Drop is set,
// close the connection without a reply.
type Fault struct {
	Code    int
	Message string
	Drop    bool
}

// Message is a message the server accepted.
type Message struct {
	From      string
	To        []string
	Data      []byte // the raw message as received, headers and body
	MessageID string // the Message-ID header, angle brackets included
	TLS       bool   // whether the session ran over STARTTLS
	AuthUser  string // the user that authenticated, empty without AUTH
}

// Options configures the server.
type Options struct {
	// NoTLS turns STARTTLS off; by default the server offers it with a self-signed certificate for 127.0.0.1.
	NoTLS bool
	// Username and Password, when set, make AUTH (PLAIN or LOGIN) required before MAIL.
	Username string
	Password string
	// Journal, when set, is a file every accepted message is appended to (one JSON object a line) before the
	// server answers 250, so a reader in another process sees exactly what was accepted (ReadJournal).
	Journal string
}

// Server is a running SMTP server.
type Server struct {
	Host string // "127.0.0.1"
	Port int
	// RootCAs trusts the server's certificate; give it to the client's tls.Config.
	RootCAs *x509.CertPool

	opts Options
	srv  *smtp.Server

	mu       sync.Mutex
	faults   map[Stage]Fault
	messages []Message
	journal  *os.File
	conns    map[string]*smtp.Conn // every client connection, by remote address (STARTTLS starts a second session on it)
}

// Start starts a server on a free loopback port and closes it when the test ends.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0", opts)
	if err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// Listen starts a server on addr ("127.0.0.1:0" picks a free port) until Close. It is how a process of its own
// (cmd/badged-cluster smtp) serves the same server; tests use Start.
func Listen(addr string, opts Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	s := &Server{Host: host, opts: opts, faults: map[Stage]Fault{}, conns: map[string]*smtp.Conn{}}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "smtptest.local"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 50
	if !opts.NoTLS {
		cert, pool, err := selfSigned(s.Host)
		if err != nil {
			return nil, fmt.Errorf("certificate: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.RootCAs = pool
	}
	if opts.Journal != "" {
		if s.journal, err = openJournal(opts.Journal); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s.Port = l.Addr().(*net.TCPAddr).Port
	s.srv = srv
	go func() { _ = srv.Serve(l) }()
	return s, nil
}

// Addr returns "host:port".
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, fmt.Sprint(s.Port)) }

// Close stops the server; later connections are refused.
func (s *Server) Close() error {
	err := s.srv.Close()
	if s.journal != nil {
		err = errors.Join(err, s.journal.Close())
	}
	return err
}

// SetFault makes the server fail every later transaction at stage with f until ClearFaults.
func (s *Server) SetFault(stage Stage, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[stage] = f
}

// ClearFaults makes the server accept again.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
}

// Messages returns the messages accepted so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Connections returns how many connections clients have opened so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// DropConnections closes every client connection, as a relay that drops idle clients does.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Conn().Close()
	}
}

// fault applies the fault set for stage, if any: it closes the connection or returns the SMTP error to answer.
func (s *Server) fault(stage Stage, conn *smtp.Conn) error {
	s.mu.Lock()
	f, ok := s.faults[stage]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	if f.Drop {
		// Closing the socket, not the smtp.Conn, so that the server's own loop notices and cleans up.
		_ = conn.Conn().Close()
		return errors.New("connection dropped")
	}
	msg := f.Message
	if msg == "" {
		msg = fmt.Sprintf("smtptest fault at %s", stage)
	}
	return &smtp.SMTPError{Code: f.Code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: msg}
}

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

// openJournal opens the journal for appending. A last line cut short by a kill -9 mid-write belongs to a message
// that was never answered 250, so it is dropped.
func openJournal(path string) (*os.File, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if err := os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1)); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// ReadJournal returns the messages a server with Options.Journal accepted, oldest first, across restarts.
func ReadJournal(path string) ([]Message, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []Message
	dec := json.NewDecoder(f)
	for {
		var m Message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return msgs, nil // a message being written now (or cut by a kill -9): not accepted yet
		}
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		msgs = append(msgs, m)
	}
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

// selfSigned makes a short-lived certificate for host and a pool that trusts it.
func selfSigned(host string) (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}
