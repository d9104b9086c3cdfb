package api

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/stats"
)

//go:embed templates/page/*.html
var pageFS embed.FS

// pageTemplates are the badge page: layout.html holds the document, each partial one section of it.
var pageTemplates = template.Must(template.ParseFS(pageFS, "templates/page/*.html"))

// pageCSP lets the page load only its own images and its inline style: no script, no other host. The images
// are its own origin's and the public base URL's (imgOrigin): the embed preview shows the snippet exactly as it is
// copied, with the absolute URL of the preview image, and a server reached under another name (an internal
// hostname) must still show it.
func pageCSP(imgOrigin string) string {
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

// badgePage is the public badge page at /verify/{id} (v2's credentialUrl, and v3's for browsers). It checks the
// badge itself and says first, plainly, whether it is valid. A revoked, expired or replaced badge is still a
// page that exists (200): the page is the answer, and a link preview or an archived link must show it; the
// machine-readable state is at /credentials/{id}/status. An unknown id is a 404 page in the same design.
func (h *handler) badgePage(w http.ResponseWriter, r *http.Request) error {
	lang := pickLang(r)
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	if !found {
		h.renderPage(w, r, http.StatusNotFound, "notfound", notFoundView(lang))
		return nil
	}
	view := h.buildPage(row, h.assess(r.Context(), row.Assertion), lang)
	if err := h.addWalletSince(r.Context(), &view, row.Assertion.ID, lang); err != nil {
		return err
	}
	h.renderPage(w, r, http.StatusOK, "layout", view)
	h.countEvent(r, row.Assertion, stats.View) // a view, and the page's check of the badge
	return nil
}

// loadPage reads the assertion of the page; found is false for a malformed or unknown id and for an assertion
// whose credential was never issued (the same page, so a guess learns nothing).
func (h *handler) loadPage(r *http.Request) (db.GetBadgePageRow, bool, error) {
	id, err := parseUUID(chi.URLParam(r, "assertionId"))
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
	a := row.Assertion
	return row, a.CredentialKey != nil && slices.Contains(issuedStates, a.State), nil
}

// renderPage executes a page template into a buffer first, so a template failure is a 500, never half a page.
func (h *handler) renderPage(w http.ResponseWriter, r *http.Request, status int, name string, view any) {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, name, view); err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP(originOf(h.urls().BaseURL)))
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", negotiatedVary)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// notFoundView is the view of the 404 page. It checked no badge, so its footer says only where badges are
// checked, and its heading is not a verdict on one (the neutral "notfound" colour, not "invalid").
func notFoundView(lang string) pageView {
	return pageView{Lang: lang, Title: msg(lang, "notfound.title"), Languages: languageLinks(lang), Footer: msg(lang, "notfound.footer"),
		Verdict: verdict{Kind: "notfound", Title: msg(lang, "notfound.heading"), Detail: msg(lang, "notfound.detail")}}
}

// addWalletSince adds "in a wallet since <date>" to the issuer's records when a wallet holds a copy of the
// credential. It says only that and when, never which wallet or holder, and never offers one (the page is public).
func (h *handler) addWalletSince(ctx context.Context, v *pageView, assertion uuid.UUID, lang string) error {
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
