package signin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/web"
)

// Audience is who a link, a session and a cookie are for; one never opens another's pages.
type Audience string

// The audiences.
const (
	Earner  Audience = "earner"
	Console Audience = "console"
)

// Errors the callers tell apart.
var (
	// ErrBadAddress: the address is not a well-formed bare address (the form says so, with a 4xx).
	ErrBadAddress = errors.New("signin: not a well-formed e-mail address")
	// ErrLinkInvalid: the link is unknown, used, expired or of another audience (the page offers a fresh form).
	ErrLinkInvalid = errors.New("signin: the link is used, expired or unknown")
	// ErrLimited: Invite's address had too many links lately (Request never says so).
	ErrLimited = errors.New("signin: too many links for this address lately")
)

// Defaults of Config's durations and limits.
const (
	DefaultLinkTTL     = 15 * time.Minute
	DefaultIdle        = 30 * time.Minute
	DefaultMaxAge      = 12 * time.Hour
	DefaultWindow      = time.Hour
	DefaultPerAddress  = 5
	DefaultPerClient   = 30
	tokenBytes         = 32 // 256 random bits: links, session ids, CSRF tokens
	defaultCookiePrefx = "badged_"
)

// Text is the mail a link travels in, for the address's language ("ko" or "en"): the caller's words around link.
type Text func(lang, link string) (subject, body string)

// Config configures one audience's sign-in.
type Config struct {
	DB       *db.DB
	Audience Audience
	// BaseURL is PUBLIC_BASE_URL: links are BaseURL+Prefix+"/sign-in/"+token; an https one makes the cookie Secure.
	BaseURL string
	// Prefix is where the audience's pages live ("/earner", "/console"): the cookie's Path, so the browser never
	// sends one audience's cookie to the other's pages.
	Prefix  string
	Mailer  *Mailer
	Metrics *metrics.Metrics // nil: nothing measured
	// Eligible says, off the request path, whether an address may get a link (holds a credential, is a member);
	// nil: every address. Its answer never reaches the person asking.
	Eligible func(ctx context.Context, address string) (bool, error)
	// Text is the sign-in mail's text; nil: DefaultText.
	Text Text
	// LinkTTL, Idle and MaxAge: a link's life, a session's idle expiry and absolute end (zero: the defaults).
	LinkTTL, Idle, MaxAge time.Duration
	// PerAddress and PerClient links in Window (zero: the defaults); beyond them the answer is the same, no mail.
	PerAddress, PerClient int
	Window                time.Duration
	Clock                 func() time.Time // nil: time.Now
}

// Service is one audience's sign-in. It is safe for concurrent use, and any number of processes may run one on
// the same database.
type Service struct {
	cfg    Config
	secure bool
	cookie string
}

// New checks cfg and fills its defaults.
func New(cfg Config) (*Service, error) {
	if cfg.DB == nil || cfg.Mailer == nil {
		return nil, errors.New("signin: DB and Mailer are required")
	}
	if cfg.Audience != Earner && cfg.Audience != Console {
		return nil, fmt.Errorf("signin: unknown audience %q", cfg.Audience)
	}
	if !strings.HasPrefix(cfg.Prefix, "/") || strings.HasSuffix(cfg.Prefix, "/") {
		return nil, fmt.Errorf("signin: prefix %q must start and not end with /", cfg.Prefix)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.LinkTTL, DefaultLinkTTL)
	def(&cfg.Idle, DefaultIdle)
	def(&cfg.MaxAge, DefaultMaxAge)
	def(&cfg.Window, DefaultWindow)
	if cfg.PerAddress <= 0 {
		cfg.PerAddress = DefaultPerAddress
	}
	if cfg.PerClient <= 0 {
		cfg.PerClient = DefaultPerClient
	}
	if cfg.Text == nil {
		cfg.Text = DefaultText
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Service{cfg: cfg, secure: strings.HasPrefix(cfg.BaseURL, "https://"),
		cookie: defaultCookiePrefx + string(cfg.Audience)}, nil
}

// Audience is the service's audience.
func (s *Service) Audience() Audience { return s.cfg.Audience }

// Request asks for a sign-in link for address on behalf of r's client, mailed in lang ("ko" or "en"). It returns
// ErrBadAddress for a malformed address and otherwise nil, whether the address is known, unknown, or over a limit:
// the same answer in about the same time (no lookup of the address on this path; the Mailer does it later).
func (s *Service) Request(ctx context.Context, r *http.Request, address, lang string) error {
	addr, ok := Normalize(address)
	if !ok {
		return ErrBadAddress
	}
	// Both counters count every request, so a client over its limit cannot tell an address's limit from its own.
	overAddr, err := s.over(ctx, "address\x00"+addr, s.cfg.PerAddress)
	if err != nil {
		return err
	}
	overClient, err := s.over(ctx, "client\x00"+string(s.cfg.Audience)+"\x00"+web.ClientAddr(r), s.cfg.PerClient)
	if err != nil {
		return err
	}
	switch {
	case overAddr:
		s.cfg.Metrics.SigninRequest(string(s.cfg.Audience), "address_limit")
	case overClient:
		s.cfg.Metrics.SigninRequest(string(s.cfg.Audience), "client_limit")
	default:
		s.enqueue(job{svc: s, to: addr, lang: lang, text: s.cfg.Text, checkEligible: true})
	}
	return nil
}

// Invite mails address a sign-in link in the caller's words (an invitation to an organization is one). It skips
// Eligible (the caller decided) and the client limit, but not the address's: ErrLimited says the address had its
// share of links lately. The mail itself is sent as Request's.
func (s *Service) Invite(ctx context.Context, address, lang string, text Text) error {
	addr, ok := Normalize(address)
	if !ok {
		return ErrBadAddress
	}
	over, err := s.over(ctx, "address\x00"+addr, s.cfg.PerAddress)
	if err != nil {
		return err
	}
	if over {
		s.cfg.Metrics.SigninRequest(string(s.cfg.Audience), "address_limit")
		return ErrLimited
	}
	if text == nil {
		text = s.cfg.Text
	}
	s.enqueue(job{svc: s, to: addr, lang: lang, text: text})
	return nil
}

func (s *Service) enqueue(j job) {
	if s.cfg.Mailer.enqueue(j) {
		s.cfg.Metrics.SigninRequest(string(s.cfg.Audience), "queued")
	} else {
		s.cfg.Metrics.SigninRequest(string(s.cfg.Audience), "queue_full")
	}
}

// over counts one hit on key and reports whether it went beyond limit in the current window.
func (s *Service) over(ctx context.Context, key string, limit int) (bool, error) {
	hits, err := s.cfg.DB.CountSigninHit(ctx, db.CountSigninHitParams{KeyHash: digest(key), Now: s.cfg.Clock(),
		WindowSeconds: s.cfg.Window.Seconds()})
	if err != nil {
		return false, fmt.Errorf("signin: count: %w", err)
	}
	return int(hits) > limit, nil
}

// link creates the link row of a new token for addr and returns the URL the mail carries.
func (s *Service) link(ctx context.Context, addr string) (string, error) {
	token := randomToken()
	err := s.cfg.DB.CreateSigninLink(ctx, db.CreateSigninLinkParams{TokenHash: digest(token), Audience: string(s.cfg.Audience),
		Email: addr, ExpiresAt: s.cfg.Clock().Add(s.cfg.LinkTTL)})
	if err != nil {
		return "", fmt.Errorf("signin: create link: %w", err)
	}
	return s.cfg.BaseURL + s.cfg.Prefix + "/sign-in/" + token, nil
}

// randomToken is 256 bits from crypto/rand, base64url without padding (43 characters).
func randomToken() string {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+): it crashes the program instead
	return base64.RawURLEncoding.EncodeToString(b)
}

// digest is the SHA-256 of a secret or a limit key: what the tables hold instead of it.
func digest(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}
