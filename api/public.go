package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/internal/web"
)

// publicAssertion loads an assertion for the public routes: only one whose credential was issued exists there.
func (h *handler) publicAssertion(r *http.Request) (db.GetPublicAssertionRow, error) {
	id, err := parseUUID(chi.URLParam(r, "assertionId"))
	if err != nil {
		return db.GetPublicAssertionRow{}, newError(codeNotFound, "no such credential")
	}
	a, err := h.db.GetPublicAssertion(r.Context(), id)
	if db.IsNotFound(err) || (err == nil && !web.Issued(a.Assertion)) {
		return db.GetPublicAssertionRow{}, newError(codeNotFound, "no issued credential with id %s", id)
	}
	return a, err
}

// negotiated sets the caching headers of every answer of /credentials/{id}, errors included, before the handler
// picks a representation: Vary names what the choice depends on, so that a shared cache never hands the page to a
// verifier or the JSON to a browser; no-cache makes every cache revalidate, since the page changes with the
// credential's status (and the JSON's Link names a replacement once there is one).
func negotiated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Vary", web.NegotiatedVary)
		w.Header().Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}

// getCredential answers the signed credential (credentialUrl of v3); a browser asking for HTML gets the
// verification page instead, so the same link serves people and verifiers (negotiated sets the caching headers).
func (h *handler) getCredential(w http.ResponseWriter, r *http.Request) error {
	if wantsHTML(r) {
		return h.page.BadgePage(w, r)
	}
	a, err := h.publicAssertion(r)
	if err != nil {
		return err
	}
	if a.Assertion.State == string(db.AssertionReissued) && a.Assertion.ReplacedBy != nil {
		// RFC 5829: verifiers (badged credential verify) learn from the credential's own URL what replaced it.
		w.Header().Set("Link", "<"+h.baseURL+"/credentials/"+a.Assertion.ReplacedBy.String()+`>; rel="successor-version"`)
	}
	if err := web.ServeBlob(w, r, h.blob, h.log, *a.Assertion.CredentialKey, "application/vc+ld+json", ""); err != nil {
		return err
	}
	h.stats.RecordServed(r, a.Assertion, stats.VerifyAPI) // a verifier fetched the signed credential
	return nil
}

// getCredentialImage answers the baked badge image (openbadgeImageUrl).
func (h *handler) getCredentialImage(w http.ResponseWriter, r *http.Request) error {
	a, err := h.publicAssertion(r)
	if err == nil && a.Assertion.BakedKey == nil {
		err = newError(codeNotFound, "the credential has no baked image yet")
	}
	if err != nil {
		return err
	}
	return web.ServeBlob(w, r, h.blob, h.log, *a.Assertion.BakedKey, *a.Assertion.BakedContentType, "")
}

// getIssuer answers the live issuer's controller document (the Multikey its proofs name), byte for byte as before
// the organization had a page; a browser asking for HTML gets the organization's page (package catalog) instead,
// so the issuer id of every credential leads a person to the issuer. negotiated sets Vary and no-cache.
func (h *handler) getIssuer(w http.ResponseWriter, r *http.Request) error {
	if wantsHTML(r) {
		return h.catalog.OrgPage(w, r)
	}
	return h.serveIssuer(w, r, apikey.ModeLive)
}

// getAchievement answers a badge's achievement id: the OB 3.0 Achievement its credentials embed, or the badge's
// page to a browser (package catalog).
func (h *handler) getAchievement(w http.ResponseWriter, r *http.Request) error {
	if wantsHTML(r) {
		return h.catalog.BadgePage(w, r)
	}
	return h.catalog.Achievement(w, r)
}

// getTestIssuer answers the test issuer's controller document: its own key, marked as a test issuer.
func (h *handler) getTestIssuer(w http.ResponseWriter, r *http.Request) error {
	return h.serveIssuer(w, r, apikey.ModeTest)
}

func (h *handler) serveIssuer(w http.ResponseWriter, r *http.Request, mode string) error {
	id, err := parseUUID(chi.URLParam(r, "orgId"))
	if err != nil {
		return newError(codeNotFound, "no such issuer")
	}
	doc, found, err := h.issuer.ControllerDocument(r.Context(), id, mode)
	if err == nil && !found {
		err = newError(codeNotFound, "no %s issuer %s (an organization gets its key with its first issuance of the mode)", mode, id)
	}
	if err != nil {
		return err
	}
	h.writePublicJSON(w, "application/did+ld+json", doc)
	return nil
}

// getStatusList answers a signed BitstringStatusListCredential; revocations show in it at once.
func (h *handler) getStatusList(w http.ResponseWriter, r *http.Request) error {
	id, err := parseUUID(chi.URLParam(r, "listId"))
	if err != nil {
		return newError(codeNotFound, "no such status list")
	}
	signed, found, err := h.issuer.StatusListCredential(r.Context(), id)
	if err == nil && !found {
		err = newError(codeNotFound, "no status list %s", id)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/vc+ld+json")
	w.Header().Set("Cache-Control", "no-cache") // a verifier must see a revocation at once
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(signed)
	return nil
}

func (h *handler) writePublicJSON(w http.ResponseWriter, contentType string, v any) {
	w.Header().Set("Access-Control-Allow-Origin", "*") // browser-based verifiers resolve these
	w.Header().Set("Content-Type", contentType)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		h.log.Warn("write response", "err", err)
	}
}

func wantsHTML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/html") && !strings.Contains(accept, "json")
}
