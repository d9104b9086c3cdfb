// Package smtptest runs a real SMTP server in-process (github.com/emersion/go-smtp) on a loopback port for tests:
// STARTTLS with a self-signed certificate, AUTH PLAIN and LOGIN, a record of every accepted message (optionally
// journaled to a file, for a server that runs as a process of its own), and faults on demand (an SMTP error reply
// or a dropped connection at a chosen stage); Parts takes a received message apart as a mail client would.
//
// It imports nothing of the module; only tests and cmd/badged-cluster import it.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"testing"
	"time"

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
// close the connection without a reply, or, when Hold is set, keep the client waiting for the reply until
// ClearFaults (or Close), then answer Code (421 when zero): a client stuck mid-transaction, for a test to kill it
// there (Held counts the clients waiting).
type Fault struct {
	Code    int
	Message string
	Drop    bool
	Hold    bool
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
	release  chan struct{}         // closed by ClearFaults: the held commands answer
	held     int                   // commands held now
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
	s := &Server{Host: host, opts: opts, faults: map[Stage]Fault{}, conns: map[string]*smtp.Conn{},
		release: make(chan struct{})}
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
	s.ClearFaults() // a held command answers, so the server's loop can end
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

// ClearFaults makes the server accept again; the commands held by a Hold fault answer with its error.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
	close(s.release)
	s.release = make(chan struct{})
}

// Held returns how many client commands a Hold fault keeps waiting now.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
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
	release := s.release
	if ok && f.Hold {
		s.held++
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	if f.Hold {
		<-release
		s.mu.Lock()
		s.held--
		s.mu.Unlock()
		if f.Code == 0 {
			f.Code = 421
		}
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
