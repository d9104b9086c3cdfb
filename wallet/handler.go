package wallet

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/web"
)

// Where the shared endpoints live: OpenID4VCI's token, nonce, credential and notification endpoints and the offers
// (oid4vci.Prefix), and the VC-API exchanges. api's CORS table names both.
const (
	OID4VCIPrefix  = oid4vci.Prefix
	ExchangePrefix = "/exchanges"
)

// Deps are what the wallet protocols need; api builds them from its own.
type Deps struct {
	DB      *db.DB
	Blob    blob.Store      // the signed credentials the copies are made from
	Issuer  *issuer.Service // issuer keys, signers and public ids
	BaseURL string          // absolute URL wallets reach this service at, without a trailing slash
	Log     *slog.Logger
	Metrics *metrics.Metrics // claims and notifications; nil: none
	// Handle answers a failure of the issuer's metadata and key documents through api's error funnel: they are
	// public reads beside the issuer's controller document, so an unknown issuer or key is the contract's 404 body
	// (web.NotFoundError) and anything else its logged 500. nil: plain-text answers (tests of this package alone).
	Handle func(func(http.ResponseWriter, *http.Request) error) http.HandlerFunc
}

// Handler answers the wallet protocols.
type Handler struct {
	db      *db.DB
	blob    blob.Store
	issuer  *issuer.Service
	baseURL string
	log     *slog.Logger
	metrics *metrics.Metrics
	handle  func(func(http.ResponseWriter, *http.Request) error) http.HandlerFunc
}

// New returns the wallet protocols' handler.
func New(d Deps) *Handler {
	h := &Handler{db: d.DB, blob: d.Blob, issuer: d.Issuer, baseURL: strings.TrimRight(d.BaseURL, "/"), log: d.Log,
		metrics: d.Metrics, handle: d.Handle}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.handle == nil {
		h.handle = plainHandle
	}
	return h
}

// Route is one route of the wallet protocols, mounted by api's router at Pattern (path values in chi's syntax,
// read with http.Request.PathValue).
type Route struct {
	Method, Pattern string
	Handler         http.HandlerFunc
}

// Routes is the route table of the wallet protocols. They sit outside the versioned API: their bodies are the
// protocols'.
func (h *Handler) Routes() []Route {
	var out []Route
	get := func(pattern string, fn http.HandlerFunc) { out = append(out, Route{http.MethodGet, pattern, fn}) }
	post := func(pattern string, fn http.HandlerFunc) { out = append(out, Route{http.MethodPost, pattern, fn}) }
	// OpenID4VCI (meta.go): each organization is a credential issuer, live and test, whose metadata sits at the
	// well-known path with the issuer's path as suffix.
	for _, is := range []struct{ suffix, mode string }{{"/issuers/{orgId}", apikey.ModeLive}, {"/issuers/{orgId}/test", apikey.ModeTest}} {
		meta, as := h.forIssuer(is.mode, h.issuerMetadata), h.forIssuer(is.mode, h.authServerMetadata)
		get("/.well-known/openid-credential-issuer"+is.suffix, meta)
		get("/.well-known/oauth-authorization-server"+is.suffix, as)
		// The form some wallets try first (the well-known segment appended): the same documents.
		get(is.suffix+"/.well-known/openid-credential-issuer", meta)
		get(is.suffix+"/.well-known/oauth-authorization-server", as)
		get(is.suffix+"/jwks", h.forIssuer(is.mode, h.issuerJWKS))
		get(is.suffix+"/jwks/{kid}", h.forIssuer(is.mode, h.issuerJWK))
	}
	get(OID4VCIPrefix+"/offers/{offerId}", h.serveOffer)
	get(OID4VCIPrefix+"/offers/{offerId}/open", h.offerPage)
	post(OID4VCIPrefix+"/token", h.token)
	post(OID4VCIPrefix+"/nonce", h.nonce)
	post(OID4VCIPrefix+"/credential", h.credential)
	post(OID4VCIPrefix+"/notification", h.notification)
	// The VC-API exchanges of the same offers (exchange.go).
	post(ExchangePrefix+"/{offerId}", h.exchange)
	get(ExchangePrefix+"/{offerId}/protocols", h.exchangeProtocols)
	return out
}

// plainHandle is Deps.Handle's stand-in when none is given: a 404 for web.NotFoundError, a logged 500 otherwise.
func plainHandle(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		var nf *web.NotFoundError
		switch {
		case err == nil:
		case errors.As(err, &nf):
			http.Error(w, nf.Msg, http.StatusNotFound)
		default:
			slog.ErrorContext(r.Context(), "wallet", "path", r.URL.Path, "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}
}

func (h *Handler) endpoint(p string) string { return h.baseURL + OID4VCIPrefix + p }
