package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"github.com/badged/badged/catalog"
	"github.com/badged/badged/console"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuancelog"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/media"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/page"
	"github.com/badged/badged/wallet"
)

// Deps are what the handlers need; cmd/badged builds them from configuration.
type Deps struct {
	DB            *db.DB
	Blob          blob.Store
	Log           *slog.Logger
	Location      *time.Location     // service time zone for v2 datetimes and calendar rules (default Asia/Seoul)
	PublicBaseURL string             // absolute URL clients reach this service at, e.g. http://localhost:8080
	MediaLimits   media.Limits       // upload limits and decode budget; zero fields take media's defaults
	Clock         func() time.Time   // nil means time.Now
	RateClock     func() time.Time   // the rate limiter's clock, apart from Clock (which tests pin); nil means time.Now
	Issuances     IssuanceStarter    // starts issuance workflows
	Issuer        *issuer.Service    // issuer keys, status lists and public ids
	Chain         page.ChainVerifier // nil: the verification page shows the recorded anchor without re-checking
	Metrics       *metrics.Metrics   // HTTP request metrics (served on METRICS_ADDR, not here); nil: none
	RateLimit     RateLimit          // per-API-key request rate; zero: no limit (cmd/badged: RATE_LIMIT_RPS/_BURST)
	// KeyCacheTTL is how long an API-key row read for authentication is reused, and so how long a revoked key may
	// still work on this process; zero: every request reads the key (cmd/badged: API_KEY_CACHE_TTL).
	KeyCacheTTL time.Duration
	Webhooks    WebhookStarter    // starts webhook (re)deliveries; nil: redelivery answers 500
	WebhookURLs webhook.URLPolicy // what endpoint URLs may point at (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE)
	// Stats counts page views, API verifications, PDF downloads and share clicks (internal/stats); nil: nothing
	// is counted (the stats routes still answer what the database holds).
	Stats *stats.Recorder
	// SignIn is the earner's mail-link sign-in (package earner's pages at /earner); a nil Service leaves the
	// earner's pages unmounted (404).
	SignIn SignIn
	// KeyRevocations, with KeyCacheTTL, makes a key revoked anywhere stop working on this process at once: the
	// handler's key cache subscribes to it (cmd/badged runs its Listen). nil: a revocation made elsewhere takes
	// effect here within KeyCacheTTL.
	KeyRevocations *apikey.Revocations
	// Console is the console's mail-link sign-in (package console, mounted at /console); nil: no console.
	Console console.SignIn
	// ConsoleRedrive re-drives an issuance's retryable failures for the console (temporal.Redrive); nil: the
	// console offers no re-drive.
	ConsoleRedrive func(ctx context.Context, issuance uuid.UUID) (string, error)
}

// SignIn is the earner's sign-in: internal/signin's service of the earner audience (earner.SignInConfig; cmd/badged
// builds it beside the console's, on the process's one mailer).
type SignIn struct {
	Service *signin.Service
	// Tally counts earner sign-ins and collection views; nil: one of the handler's own on DB.
	Tally *stats.Tally
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
	// logTiles are the issuance logs' full tiles served so far (immutable: api/issuancelog.go).
	logTiles *issuancelog.TileCache
	chain    page.ChainVerifier // the receipt's finality (receipt.go); the page checks anchors with it too
	metrics  *metrics.Metrics
	limiter  *keyLimiter // nil: no rate limit
	keys     *keyCache   // nil: every request reads its API key
	// page answers the badge page and what is drawn from it (preview image, certificate, share redirect).
	page        *page.Handler
	catalog     *catalog.Handler // the organization's page and the badge's page (issuer id and achievement id)
	wallet      *wallet.Handler  // the wallet protocols; the keyed API's offer operations create offers through it
	webhooks    WebhookStarter
	webhookURLs webhook.URLPolicy
	stats       *stats.Recorder
	keyUse      keyUse // when each key was last used (api/keyuse.go)
}

// NewHandler returns the whole HTTP API: middleware plus the route table of both versions.
func NewHandler(d Deps) http.Handler {
	h := &handler{db: d.DB, blob: d.Blob, log: d.Log, loc: d.Location, baseURL: strings.TrimRight(d.PublicBaseURL, "/"),
		images: media.NewProcessor(d.MediaLimits), clock: d.Clock, starter: d.Issuances,
		issuer: d.Issuer, chain: d.Chain, metrics: d.Metrics, webhooks: d.Webhooks, webhookURLs: d.WebhookURLs, stats: d.Stats,
		logTiles: &issuancelog.TileCache{}}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.loc == nil {
		h.loc = defaultLocation()
	}
	if h.clock == nil {
		h.clock = time.Now
	}
	h.page = page.New(page.Deps{DB: d.DB, Blob: d.Blob, Log: h.log, Location: h.loc, Clock: h.clock, Issuer: d.Issuer,
		URLs: h.urls(), Chain: d.Chain, Metrics: d.Metrics, Stats: d.Stats})
	h.catalog = catalog.New(catalog.Deps{DB: d.DB, URLs: h.urls(), Location: h.loc, Log: h.log})

	r := chi.NewRouter()
	r.Use(middleware.RequestID, h.logRequests, h.recoverer, securityHeaders)
	r.Use(h.countRequests, h.guardRequest(r), h.cors)
	r.Use(middleware.GetHead) // HEAD is answered wherever GET is: the GET's status and headers, no body
	r.NotFound(h.notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		h.writeError(w, r, newError(codeMethod, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/healthz", h.healthz)
	r.Get("/readyz", h.readyz)
	r.Get("/media/{mediaID}/{variant}", h.handle(h.serveMedia))
	r.Get("/", h.handle(h.serviceRoot))                                           // issuer.url of test credentials; api/root.go
	r.With(negotiated).Get("/issuers/{orgId}", h.handle(h.getIssuer))             // the document, or the organization's page
	r.With(negotiated).Get("/achievements/{badgeId}", h.handle(h.getAchievement)) // the Achievement, or the badge's page
	r.Get("/issuers/{orgId}/test", h.handle(h.getTestIssuer))
	r.Get("/issuers/{orgId}/log/checkpoint", h.handle(h.getLogCheckpoint)) // the issuance log (C2SP), api/issuancelog.go
	r.Get("/issuers/{orgId}/log/tile/*", h.handle(h.getLogTile))
	r.With(negotiated).Get("/credentials/{assertionId}", h.handle(h.getCredential))
	r.Get("/credentials/{assertionId}/image", h.handle(h.getCredentialImage))
	r.Get("/credentials/{assertionId}/receipt", h.handle(h.getReceipt))
	r.Get("/credentials/{assertionId}/status", h.handle(h.getCredentialStatus))
	r.Get("/credentials/{assertionId}/certificate.pdf", h.handle(h.page.Certificate))
	r.Get("/credentials/{assertionId}/preview.png", h.handle(h.page.SharePreview))
	r.Get("/verify/{assertionId}", h.handle(h.page.BadgePage))
	r.Get("/status-lists/{listId}", h.handle(h.getStatusList))
	r.Get("/share/{assertionId}/{network}", h.handle(h.page.ShareRedirect))  // page/share_redirect.go: counts a share click, 302
	r.Post("/share/{assertionId}/{network}", h.handle(h.page.ShareRedirect)) // the same count for a script's beacon, 204
	// The wallet protocols (package wallet): OpenID4VCI and the VC-API exchanges of the same offers.
	h.wallet = wallet.New(wallet.Deps{DB: d.DB, Blob: d.Blob, Issuer: d.Issuer, BaseURL: h.baseURL, Log: h.log,
		Metrics: d.Metrics, Handle: func(fn func(http.ResponseWriter, *http.Request) error) http.HandlerFunc { return h.handle(fn) }})
	for _, rt := range h.wallet.Routes() {
		r.Method(rt.Method, rt.Pattern, rt.Handler)
	}

	h.mountEarner(r, d)

	// Real time, not h.clock: tests pin the handler clock, which would never refill a bucket.
	rateClock := d.RateClock
	if rateClock == nil {
		rateClock = time.Now
	}
	h.limiter = newKeyLimiter(d.RateLimit, rateClock)
	if d.KeyCacheTTL > 0 {
		h.keys = newKeyCache(d.KeyCacheTTL, time.Now, d.DB.GetAPIKey) // real time: a pinned test clock never expires
		if d.KeyRevocations != nil {
			d.KeyRevocations.Subscribe(h.keys.forget, h.keys.reset)
		}
	}
	if d.Console != nil {
		c := console.New(console.Deps{DB: d.DB, SignIn: d.Console, Log: h.log, Location: h.loc, Redrive: d.ConsoleRedrive,
			KeyRevoked: h.forgetKey, Assertions: h.consoleAssertions()})
		r.Mount("/console", c.Router())
	}
	for _, v := range versions {
		r.Get(v.prefix()+"/openapi.json", h.handle(h.serveOpenAPI(v))) // public: integrators read it before they have a key
		r.Route(v.prefix(), func(r chi.Router) {
			r.Use(versionMiddleware(v), h.authenticate, h.rateLimit)
			r.NotFound(h.notFound) // behind authentication: an unknown path under a version needs a key too
			for _, rt := range routes {
				if rt.v3only && v != v3 {
					continue
				}
				fn := rt.fn
				r.With(h.require(rt.role), h.modePolicy(rt.method, rt.pattern, rt.mode)).
					Method(rt.method, rt.pattern, h.handle(func(w http.ResponseWriter, r *http.Request) error { return fn(h, w, r) }))
			}
		})
	}
	return r
}

// route is one operation of the versioned API and who may call it: the lowest role, and what a key of each mode
// may touch (modes.go).
type route struct {
	method, pattern string
	role            string
	mode            modeRule
	fn              func(*handler, http.ResponseWriter, *http.Request) error
	v3only          bool // an extension of v3 (webhooks.go)
}

// routes is the route table of /public/v2 and /public/v3. Reads need a viewer key, changes a manager key (the
// contract's roles); the mode rule is the test-mode sandbox (modes.go, README "Test mode").
var routes = []route{
	{http.MethodGet, "/organization", apikey.RoleViewer, sharedRead, (*handler).getOrganization, false},
	{http.MethodPost, "/media-files/images", apikey.RoleManager, liveWrite, (*handler).uploadImage, false},

	{http.MethodPost, "/programs", apikey.RoleManager, liveWrite, (*handler).createProgram, false},
	{http.MethodGet, "/programs", apikey.RoleViewer, sharedRead, (*handler).listPrograms, false},
	{http.MethodGet, "/programs/{programId}", apikey.RoleViewer, sharedRead, (*handler).getProgram, false},
	{http.MethodPatch, "/programs/{programId}", apikey.RoleManager, liveWrite, (*handler).updateProgram, false},
	{http.MethodDelete, "/programs/{programId}", apikey.RoleManager, liveWrite, (*handler).deleteProgram, false},

	{http.MethodPost, "/badges", apikey.RoleManager, liveWrite, (*handler).createBadge, false},
	{http.MethodGet, "/badges", apikey.RoleViewer, sharedRead, (*handler).listBadges, false},
	{http.MethodGet, "/badges/{badgeId}", apikey.RoleViewer, sharedRead, (*handler).getBadge, false},
	{http.MethodPatch, "/badges/{badgeId}", apikey.RoleManager, liveWrite, (*handler).updateBadge, false},
	{http.MethodDelete, "/badges/{badgeId}", apikey.RoleManager, liveWrite, (*handler).deleteBadge, false},

	{http.MethodPost, "/badges/{badgeId}/issuances", apikey.RoleManager, sandboxed, (*handler).createIssuance, false},
	{http.MethodGet, "/issuances/{issuanceId}", apikey.RoleViewer, sandboxed, (*handler).getIssuance, false},
	// What happened to each badge (v3 extension; api/stats.go): each key mode sees its own assertions' counters.
	{http.MethodGet, "/badges/{badgeId}/stats", apikey.RoleViewer, sandboxed, (*handler).getBadgeStats, true},
	{http.MethodGet, "/issuances/{issuanceId}/stats", apikey.RoleViewer, sandboxed, (*handler).getIssuanceStats, true},
	{http.MethodGet, "/programs/{programId}/stats", apikey.RoleViewer, sandboxed, (*handler).getProgramStats, true},
	{http.MethodGet, "/assertions/{assertionId}/stats", apikey.RoleViewer, sandboxed, (*handler).getAssertionStats, true},
	{http.MethodGet, "/assertions", apikey.RoleViewer, sandboxed, (*handler).listAssertions, false},
	{http.MethodGet, "/assertions/{assertionId}", apikey.RoleViewer, sandboxed, (*handler).getAssertion, false},
	{http.MethodPost, "/assertions/{assertionId}/cancel", apikey.RoleManager, sandboxed, (*handler).cancelAssertion, false},
	{http.MethodPost, "/assertions/{assertionId}/reissue", apikey.RoleManager, sandboxed, (*handler).reissueAssertion, false},
	{http.MethodGet, "/assertions/{assertionId}/pdf", apikey.RoleViewer, sandboxed, (*handler).getAssertionPDF, false},
	// Wallet offers (OpenID4VCI, offers.go; the protocols are package wallet's): a v3 extension.
	{http.MethodPost, "/assertions/{assertionId}/credential-offers", apikey.RoleManager, sandboxed, (*handler).createCredentialOffer, true},
	{http.MethodDelete, "/assertions/{assertionId}/credential-offers/{offerId}", apikey.RoleManager, sandboxed, (*handler).withdrawCredentialOffer, true},
	// Renewal (v3 extension; api/renew.go, api/renewals.go): issuances of replacements, sandboxed like them.
	{http.MethodPost, "/assertions/{assertionId}/renew", apikey.RoleManager, sandboxed, (*handler).renewAssertion, true},
	{http.MethodPost, "/badges/{badgeId}/renewals", apikey.RoleManager, sandboxed, (*handler).createRenewals, true},
	{http.MethodGet, "/badges/{badgeId}/renewals/{renewalId}", apikey.RoleViewer, sandboxed, (*handler).getRenewal, true},

	// Webhooks: every operation needs a manager key. The endpoints receive events of both modes (each names its
	// mode), so a test key may look at them and their delivery log; registering, removing and re-sending (a live
	// event included) change what live integrations receive.
	{http.MethodGet, "/webhooks", apikey.RoleManager, sharedRead, (*handler).listWebhooks, true},
	{http.MethodPost, "/webhooks", apikey.RoleManager, liveWrite, (*handler).createWebhook, true},
	{http.MethodDelete, "/webhooks/{webhookId}", apikey.RoleManager, liveWrite, (*handler).deleteWebhook, true},
	{http.MethodGet, "/webhooks/{webhookId}/deliveries", apikey.RoleManager, sharedRead, (*handler).listWebhookDeliveries, true},
	{http.MethodPost, "/webhooks/deliveries/{deliveryId}/redeliver", apikey.RoleManager, liveWrite, (*handler).redeliverWebhook, true},
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

// scopedPair reads the ids of a resource and of one of its own (a badge's renewal, an assertion's offer) and the
// key's scope, in that order: a malformed id is answered before the scope is looked at.
func scopedPair(r *http.Request, parent, child string) (uuidValue, uuidValue, scope, error) {
	p, err := pathID(r, parent)
	if err != nil {
		return uuidValue{}, uuidValue{}, scope{}, err
	}
	c, err := pathID(r, child)
	if err != nil {
		return uuidValue{}, uuidValue{}, scope{}, err
	}
	sc, err := scopeOf(r.Context())
	return p, c, sc, err
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// urls builds the public URLs of the API and the page; a handler without an issuer service (API tests) derives
// them from the public base URL the same way.
func (h *handler) urls() *issuer.Service {
	if h.issuer != nil {
		return h.issuer
	}
	return &issuer.Service{BaseURL: h.baseURL}
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
