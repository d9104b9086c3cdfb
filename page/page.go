package page

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/internal/web"
)

//go:embed templates/*.html
var pageFS embed.FS

// pageTemplates are the badge page over the common look (pagekit): layout.html holds the document, each partial
// one section of it.
var pageTemplates = pagekit.Parse(pageFS, "templates/*.html")

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

// CSP is the pages' Content-Security-Policy (pagekit.CSP), kept here for the wallet's offer page.
func CSP(imgOrigin string) string { return pagekit.CSP(imgOrigin) }

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
		return h.notFound(w, lang)
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

// renderPage writes a page template through pagekit.Write: a template failure is a 500, never half a page.
func (h *Handler) renderPage(w http.ResponseWriter, status int, name string, view any) error {
	return pagekit.Write(w, pageTemplates, status, name, view, pagekit.CSP(pagekit.OriginOf(h.urls.BaseURL)))
}

// notFound answers the 404 page of a badge page's address. It checked no badge, so its footer says only where
// badges are checked, and its heading is not a verdict on one (the neutral "notfound" colour, not "invalid").
func (h *Handler) notFound(w http.ResponseWriter, lang string) error {
	return h.renderPage(w, http.StatusNotFound, "notice", pagekit.Notice{
		Chrome: pagekit.Chrome{Lang: lang, Title: msg(lang, "notfound.title"), Skip: msg(lang, "page.skip"),
			LanguagesLabel: msg(lang, "page.languages"), Languages: pagekit.LanguageLinks(lang, nil), Footer: msg(lang, "notfound.footer")},
		Kind: "notfound", Heading: msg(lang, "notfound.heading"), Detail: msg(lang, "notfound.detail"), NoIndex: true})
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
