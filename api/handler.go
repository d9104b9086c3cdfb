// Package api is the HTTP edge of badged: the route table of /public/v2 and /public/v3, authentication, request
// decoding and the contract's response and error bodies. It is the only package that imports chi.
package api

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/media"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/webhook"
)

// Deps are what the handlers need; cmd/badged builds them from configuration.
type Deps struct {
	DB            *db.DB
	Blob          blob.Store
	Log           *slog.Logger
	Location      *time.Location   // service time zone for v2 datetimes and calendar rules (default Asia/Seoul)
	PublicBaseURL string           // absolute URL clients reach this service at, e.g. http://localhost:8080
	MediaLimits   media.Limits     // upload limits and decode budget; zero fields take media's defaults
	Clock         func() time.Time // nil means time.Now
	RateClock     func() time.Time // the rate limiter's clock, apart from Clock (which tests pin); nil means time.Now
	Issuances     IssuanceStarter  // starts issuance workflows
	Issuer        *issuer.Service  // issuer keys, status lists and public ids
	Chain         ChainVerifier    // nil: the verification page shows the recorded anchor without re-checking
	Metrics       *metrics.Metrics // HTTP request metrics (served on METRICS_ADDR, not here); nil: none
	RateLimit     RateLimit        // per-API-key request rate; zero: no limit (cmd/badged: RATE_LIMIT_RPS/_BURST)
	// KeyCacheTTL is how long an API-key row read for authentication is reused, and so how long a revoked key may
	// still work on this process; zero: every request reads the key (cmd/badged: API_KEY_CACHE_TTL).
	KeyCacheTTL time.Duration
	Webhooks    WebhookStarter    // starts webhook (re)deliveries; nil: redelivery answers 500
	WebhookURLs webhook.URLPolicy // what endpoint URLs may point at (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE)
}

type handler struct {
	db      *db.DB
	blob    blob.Store
	log     *slog.Logger
	loc     *time.Location
	baseURL string
	images  *media.Processor // upload limits, and the decode budget shared by all uploads
	clock   func() time.Time
	starter IssuanceStarter
	issuer  *issuer.Service
	chain   ChainVerifier
	metrics *metrics.Metrics
	limiter *keyLimiter // nil: no rate limit
	keys    *keyCache   // nil: every request reads its API key
	// renders bounds concurrent PDF certificate renders (CPU-heavy, ~38 MB allocated each).
	renders     chan struct{}
	webhooks    WebhookStarter
	webhookURLs webhook.URLPolicy
}

// maxConcurrentRenders is the capacity of handler.renders.
const maxConcurrentRenders = 4

// NewHandler returns the whole HTTP API: middleware plus the route table of both versions.
func NewHandler(d Deps) http.Handler {
	h := &handler{db: d.DB, blob: d.Blob, log: d.Log, loc: d.Location, baseURL: strings.TrimRight(d.PublicBaseURL, "/"),
		images: media.NewProcessor(d.MediaLimits), clock: d.Clock, starter: d.Issuances,
		issuer: d.Issuer, chain: d.Chain, metrics: d.Metrics, renders: make(chan struct{}, maxConcurrentRenders),
		webhooks: d.Webhooks, webhookURLs: d.WebhookURLs}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.loc == nil {
		h.loc = defaultLocation()
	}
	if h.clock == nil {
		h.clock = time.Now
	}

	r := chi.NewRouter()
	r.Use(middleware.RequestID, h.logRequests, h.recoverer, securityHeaders)
	r.Use(h.countRequests, h.guardRequest(r))
	r.NotFound(h.notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		h.writeError(w, r, newError(codeMethod, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/healthz", h.healthz)
	r.Get("/readyz", h.readyz)
	r.Get("/media/{mediaID}/{variant}", h.handle(h.serveMedia))
	r.Get("/issuers/{orgId}", h.handle(h.getIssuer))
	r.With(negotiated).Get("/credentials/{assertionId}", h.handle(h.getCredential))
	r.Get("/credentials/{assertionId}/image", h.handle(h.getCredentialImage))
	r.Get("/credentials/{assertionId}/receipt", h.handle(h.getReceipt))
	r.Get("/credentials/{assertionId}/status", h.handle(h.getCredentialStatus))
	r.Get("/credentials/{assertionId}/certificate.pdf", h.handle(h.getCertificatePDF))
	r.Get("/verify/{assertionId}", h.handle(h.badgePage))
	r.Get("/status-lists/{listId}", h.handle(h.getStatusList))

	// Real time, not h.clock: tests pin the handler clock, which would never refill a bucket.
	rateClock := d.RateClock
	if rateClock == nil {
		rateClock = time.Now
	}
	h.limiter = newKeyLimiter(d.RateLimit, rateClock)
	if d.KeyCacheTTL > 0 {
		h.keys = newKeyCache(d.KeyCacheTTL, time.Now, d.DB.GetAPIKey) // real time: a pinned test clock never expires
	}
	viewer, manager := h.require(apikey.RoleViewer), h.require(apikey.RoleManager)
	for _, v := range versions {
		r.Get(v.prefix()+"/openapi.json", h.handle(h.serveOpenAPI(v))) // public: integrators read it before they have a key
		r.Route(v.prefix(), func(r chi.Router) {
			r.Use(versionMiddleware(v), h.authenticate, h.rateLimit)
			r.NotFound(h.notFound) // behind authentication: an unknown path under a version needs a key too
			r.With(viewer).Get("/organization", h.getOrganization)
			r.With(manager).Post("/media-files/images", h.handle(h.uploadImage))

			r.With(manager).Post("/programs", h.handle(h.createProgram))
			r.With(viewer).Get("/programs", h.handle(h.listPrograms))
			r.With(viewer).Get("/programs/{programId}", h.handle(h.getProgram))
			r.With(manager).Patch("/programs/{programId}", h.handle(h.updateProgram))
			r.With(manager).Delete("/programs/{programId}", h.handle(h.deleteProgram))

			r.With(manager).Post("/badges", h.handle(h.createBadge))
			r.With(viewer).Get("/badges", h.handle(h.listBadges))
			r.With(viewer).Get("/badges/{badgeId}", h.handle(h.getBadge))
			r.With(manager).Patch("/badges/{badgeId}", h.handle(h.updateBadge))
			r.With(manager).Delete("/badges/{badgeId}", h.handle(h.deleteBadge))

			r.With(manager).Post("/badges/{badgeId}/issuances", h.handle(h.createIssuance))
			r.With(viewer).Get("/issuances/{issuanceId}", h.handle(h.getIssuance))
			r.With(viewer).Get("/assertions", h.handle(h.listAssertions))
			r.With(viewer).Get("/assertions/{assertionId}", h.handle(h.getAssertion))
			r.With(manager).Post("/assertions/{assertionId}/cancel", h.handle(h.cancelAssertion))
			r.With(manager).Post("/assertions/{assertionId}/reissue", h.handle(h.reissueAssertion))
			r.With(viewer).Get("/assertions/{assertionId}/pdf", h.handle(h.getAssertionPDF))
			if v == v3 { // an extension of v3 (webhooks.go); every operation needs a manager key
				r.With(manager).Get("/webhooks", h.handle(h.listWebhooks))
				r.With(manager).Post("/webhooks", h.handle(h.createWebhook))
				r.With(manager).Delete("/webhooks/{webhookId}", h.handle(h.deleteWebhook))
				r.With(manager).Get("/webhooks/{webhookId}/deliveries", h.handle(h.listWebhookDeliveries))
				r.With(manager).Post("/webhooks/deliveries/{deliveryId}/redeliver", h.handle(h.redeliverWebhook))
			}
		})
	}
	return r
}

// handlerFunc is a handler that leaves its failure to handle: it writes only its success.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc to the router: an error it returns is answered by writeError, the one funnel to the
// contract's error body, so no handler writes an error itself.
func (h *handler) handle(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.writeError(w, r, err)
		}
	}
}

// notFound answers a path no route matches with the contract's error body.
func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, newError(codeNotFound, "no route for %s %s", r.Method, r.URL.Path))
}

func versionMiddleware(v version) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(withVersion(r.Context(), v)))
		})
	}
}

// pathID reads a UUID path parameter; a malformed one is COM002, never a lookup.
func pathID(r *http.Request, name string) (uuidValue, error) {
	s := chi.URLParam(r, name)
	id, err := parseUUID(s)
	if err != nil {
		return uuidValue{}, &apiError{status: statusOf(codeFormat), code: codeFormat, msg: name + " must be a UUID",
			fields: []fieldError{{Field: name, Message: "must be a UUID, got " + quoteShort(s), format: true}}}
	}
	return uuidValue{id}, nil
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// routePattern is the matched chi pattern (never the raw path, which carries ids).
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}
