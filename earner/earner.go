package earner

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
)

//go:embed templates/*.html
var templatesFS embed.FS

var pages = pagekit.Parse(templatesFS, "templates/*.html")

// Prefix is where the earner's pages live, and the path of its session cookie.
const Prefix = "/earner"

// maxForm bounds a form body: the largest form (the profile) is well under 1 kB; a 10 kB field is refused.
const maxForm = 8 << 10

// maxCredentials bounds one collection (and one zip): far above any earner's count, below a hostile table's.
const maxCredentials = 5000

// Deps are what the earner's pages need; api passes its own.
type Deps struct {
	DB       *db.DB
	Blob     blob.Store
	Log      *slog.Logger
	Location *time.Location
	Clock    func() time.Time
	URLs     *issuer.Service // the public URLs of credentials and pages
	SignIn   *signin.Service // audience signin.Earner, Prefix "/earner"
	Tally    *stats.Tally    // sign-ins and collection views; nil: not counted
}

// Handler answers the earner's pages.
type Handler struct {
	d   Deps
	csp string
}

// Route is one route of the earner's pages, for api to mount.
type Route struct {
	Method, Pattern string
	Handle          func(http.ResponseWriter, *http.Request) error
}

// New returns the handler.
func New(d Deps) *Handler {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Clock == nil {
		d.Clock = time.Now
	}
	if d.Location == nil {
		d.Location = time.UTC
	}
	// The pages' CSP, with forms allowed to post to this origin only.
	csp := strings.Replace(pagekit.CSP(pagekit.OriginOf(d.URLs.BaseURL)), "form-action 'none'", "form-action 'self'", 1)
	return &Handler{d: d, csp: csp}
}

// SignInConfig is the earner audience's part of a sign-in (internal/signin) on d: links only to an address that
// holds a credential (checked off the request path), pages and cookie under Prefix. The caller adds the mailer,
// the base URL and the limits.
func SignInConfig(d *db.DB) signin.Config {
	return signin.Config{DB: d, Audience: signin.Earner, Prefix: Prefix,
		Eligible: func(ctx context.Context, address string) (bool, error) { return d.EarnerHasCredentials(ctx, address) }}
}

// Routes are the earner's routes.
func (h *Handler) Routes() []Route {
	return []Route{
		{http.MethodGet, Prefix, h.home},
		{http.MethodPost, Prefix + "/sign-in", h.requestLink},
		{http.MethodGet, Prefix + "/sign-in/{token}", h.confirmLink},
		{http.MethodPost, Prefix + "/sign-in/{token}", h.redeemLink},
		{http.MethodPost, Prefix + "/sign-out", h.signOut},
		{http.MethodPost, Prefix + "/sign-out-everywhere", h.signOutEverywhere},
		{http.MethodPost, Prefix + "/badges/{assertionId}", h.setBadgePrefs},
		{http.MethodPost, Prefix + "/badges/{assertionId}/wallet", h.walletOffer},
		{http.MethodPost, Prefix + "/profile", h.setProfile},
		{http.MethodGet, Prefix + "/badges/{assertionId}/credential.json", h.credentialJSON},
		{http.MethodGet, Prefix + "/export.zip", h.export},
		{http.MethodGet, "/earners/{handle}", h.profile},
	}
}

// frame is what every earner page's template reads: the shared chrome and the language's texts.
type frame struct {
	pagekit.Chrome
	T map[string]string
}

func (h *Handler) frame(r *http.Request, title string) frame {
	lang := pagekit.PickLang(r)
	t := texts(lang)
	if title == "" {
		title = t["signin_title"]
	}
	return frame{Chrome: pagekit.Chrome{Lang: lang, Title: title + " · badged", Skip: t["skip"], LanguagesLabel: t["languages"],
		BrandName: t["brand"], BrandURL: Prefix, Languages: pagekit.LanguageLinks(lang, nil), Footer: t["footer"]}, T: t}
}

// render writes a page (pagekit.Write: never half a page) with the earner's CSP; private pages are never cached.
func (h *Handler) render(w http.ResponseWriter, status int, name string, view any) error {
	if err := pagekit.Write(w, pages, status, name, view, h.csp); err != nil {
		return err
	}
	return nil
}

// privateHeaders mark a signed-in answer as the earner's alone: never stored (pagekit.Write keeps this), and no
// referrer to other sites. Not "no-referrer": Chromium then sends "Origin: null" on the page's own form posts (the
// link's button), which sameOrigin must refuse; "same-origin" sends the real origin home and nothing elsewhere.
func privateHeaders(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "same-origin")
}

// readForm parses a bounded form body; false when it cannot be read (too large, malformed).
func readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm() == nil
}

// notice answers a one-message page (pagekit's "notice") whose texts are keys of the language's table.
func (h *Handler) notice(w http.ResponseWriter, r *http.Request, status int, kind, heading, detail, link, linkText string) error {
	f := h.frame(r, "")
	f.Title = f.T[heading] + " · badged"
	n := pagekit.Notice{Chrome: f.Chrome, Kind: kind, Heading: f.T[heading], Detail: f.T[detail], Link: link,
		LinkText: f.T[linkText], NoIndex: true}
	return h.render(w, status, "notice", n)
}
