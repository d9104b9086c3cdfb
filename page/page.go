package page

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/internal/web"
)

//go:embed templates/*.html
var pageFS embed.FS

// pageTemplates are the badge page: layout.html holds the document, each partial one section of it.
var pageTemplates = template.Must(template.ParseFS(pageFS, "templates/*.html"))

// Deps are what the page needs; api's NewHandler passes its own (Log, Location and Clock set).
type Deps struct {
	DB       *db.DB
	Blob     blob.Store
	Log      *slog.Logger
	Location *time.Location   // service time zone: the page's dates, the certificate's, the LinkedIn link's
	Clock    func() time.Time // decides expiry
	Issuer   *issuer.Service  // issuer keys and public ids, for the signature check
	URLs     *issuer.Service  // builds the public URLs the page links (never nil: api derives one from its base URL)
	Chain    ChainVerifier    // nil: the page shows the recorded anchor without re-checking
	Metrics  *metrics.Metrics // counts preview renders; nil: none
	Stats    *stats.Recorder  // counts page views, PDF downloads and share clicks; nil: nothing is counted
}

// Handler answers the badge page and what is drawn from the same facts and verdict: the social preview image,
// the PDF certificate and the counting share redirect. Its methods are handlers that return their failure; api
// mounts them and answers a failure through its error funnel (a web.NotFoundError as the contract's 404 body).
type Handler struct {
	db      *db.DB
	blob    blob.Store
	log     *slog.Logger
	loc     *time.Location
	clock   func() time.Time
	issuer  *issuer.Service
	urls    *issuer.Service
	chain   ChainVerifier
	metrics *metrics.Metrics
	stats   *stats.Recorder
	// renders bounds concurrent renders of certificates and preview images (CPU-heavy; a certificate allocates
	// ~38 MB); only Handler.render takes and gives back its slots.
	renders chan struct{}
	// proofs keeps the signature and anchor checks of each credential (proofs.go).
	proofs proofCache
}

// maxConcurrentRenders is the capacity of Handler.renders.
const maxConcurrentRenders = 4

// New returns the page's handler.
func New(d Deps) *Handler {
	return &Handler{db: d.DB, blob: d.Blob, log: d.Log, loc: d.Location, clock: d.Clock, issuer: d.Issuer, urls: d.URLs,
		chain: d.Chain, metrics: d.Metrics, stats: d.Stats, renders: make(chan struct{}, maxConcurrentRenders)}
}

func (h *Handler) now() time.Time { return h.clock() }

// CSP lets the page load only its own images and its inline style: no script, no other host. The images
// are its own origin's and the public base URL's (imgOrigin): the embed preview shows the snippet exactly as it is
// copied, with the absolute URL of the preview image, and a server reached under another name (an internal
// hostname) must still show it.
func CSP(imgOrigin string) string {
	return "default-src 'none'; img-src 'self' " + imgOrigin + " data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// originOf is the scheme://host of the base URL, for a CSP source; "" when it has none.
func originOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.ContainsAny(u.Host, " ;,'") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// BadgePage is the public badge page at /verify/{id} (v2's credentialUrl, and v3's for browsers). It checks the
// badge itself and says first, plainly, whether it is valid. A revoked, expired or replaced badge is still a
// page that exists (200): the page is the answer, and a link preview or an archived link must show it; the
// machine-readable state is at /credentials/{id}/status. An unknown id is a 404 page in the same design.
func (h *Handler) BadgePage(w http.ResponseWriter, r *http.Request) error {
	lang := PickLang(r)
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	if !found {
		return h.renderPage(w, http.StatusNotFound, "notfound", notFoundView(lang))
	}
	view := h.buildPage(row, h.assess(r.Context(), row.Assertion), lang)
	if err := h.addWalletSince(r.Context(), &view, row.Assertion.ID, lang); err != nil {
		return err
	}
	if err := h.renderPage(w, http.StatusOK, "layout", view); err != nil {
		return err
	}
	h.stats.RecordServed(r, row.Assertion, stats.View) // a view, and the page's check of the badge
	return nil
}

// loadPage reads the assertion of the page; found is false for a malformed or unknown id and for an assertion
// whose credential was never issued (the same page, so a guess learns nothing).
func (h *Handler) loadPage(r *http.Request) (db.GetBadgePageRow, bool, error) {
	id, err := web.ParseUUID(r.PathValue("assertionId"))
	if err != nil {
		return db.GetBadgePageRow{}, false, nil
	}
	row, err := h.db.GetBadgePage(r.Context(), id)
	if db.IsNotFound(err) {
		return row, false, nil
	}
	if err != nil {
		return row, false, err
	}
	return row, web.Issued(row.Assertion), nil
}

// renderPage executes a page template into a buffer first, so a template failure is a 500 (the error returned,
// nothing written), never half a page.
func (h *Handler) renderPage(w http.ResponseWriter, status int, name string, view any) error {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, name, view); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", CSP(originOf(h.urls.BaseURL)))
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", web.NegotiatedVary)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// notFoundView is the view of the 404 page. It checked no badge, so its footer says only where badges are
// checked, and its heading is not a verdict on one (the neutral "notfound" colour, not "invalid").
func notFoundView(lang string) pageView {
	return pageView{Lang: lang, Title: msg(lang, "notfound.title"), Languages: languageLinks(lang), Footer: msg(lang, "notfound.footer"),
		Verdict: verdict{Kind: "notfound", Title: msg(lang, "notfound.heading"), Detail: msg(lang, "notfound.detail")}}
}

// addWalletSince adds "in a wallet since <date>" to the issuer's records when a wallet holds a copy of the
// credential. It says only that and when, never which wallet or holder, and never offers one (the page is public).
func (h *Handler) addWalletSince(ctx context.Context, v *pageView, assertion uuid.UUID, lang string) error {
	at, err := h.db.FirstWalletCopyAt(ctx, assertion)
	if db.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	v.RecordFields = append(v.RecordFields, pageField{msg(lang, "field.walletSince"), msg(lang, "field.walletSinceValue", formatDate(lang, at, h.loc))})
	return nil
}
