// Package config reads badged's configuration from the environment. Only cmd/badged imports it; every other
// package takes explicit values.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the service, with its environment variable and default.
type Config struct {
	HTTPAddr         string         // HTTP_ADDR, default ":8080"
	PublicBaseURL    string         // PUBLIC_BASE_URL, default "http://localhost<HTTP_ADDR port>"
	DatabaseURL      string         // DATABASE_URL, default the local Postgres, database badged
	TimeZone         *time.Location // TIME_ZONE, default Asia/Seoul (v2 datetimes, expiry calendar)
	DataDir          string         // DATA_DIR, default ".data": the embedded default keeps its files here
	BlobDir          string         // BLOB_DIR, default DATA_DIR/blobs
	MediaMaxBytes    int            // MEDIA_MAX_BYTES, default 5 MiB
	MediaMaxPixels   int            // MEDIA_MAX_PIXELS, default 40,000,000
	MediaDecodeMem   int64          // MEDIA_DECODE_BUDGET_BYTES: bytes all image decodes may hold at once, default 256 MiB
	ShutdownTimeout  time.Duration  // SHUTDOWN_TIMEOUT, default 20s
	LogLevel         slog.Level     // LOG_LEVEL: debug, info, warn, error; default info
	LogFormat        string         // LOG_FORMAT: json or text; default json
	MetricsAddr      string         // METRICS_ADDR: the /metrics listener of every command, default "127.0.0.1:9090" (never the API's port)
	StuckAfter       time.Duration  // STUCK_ISSUANCE_AFTER: PROCESSING longer than this counts as stuck, default 30m
	OrphanAfter      time.Duration  // ORPHAN_AFTER: a PROCESSING issuance without a workflow this long gets one, default 1m
	RedriveWindow    time.Duration  // REDRIVE_WINDOW: how long an issuance workflow with retryable failures stays open for its redrive Update, default 24h; 0 off
	RateLimitRPS     int            // RATE_LIMIT_RPS: requests per second per API key, default 50; 0 turns the limit off
	RateLimitBurst   int            // RATE_LIMIT_BURST: requests a key may send at once, default 100
	KeyCacheTTL      time.Duration  // API_KEY_CACHE_TTL: API-key rows reused this long, so a revoked key works up to this long; default 5s, 0 off
	SignInPerAddress int            // SIGNIN_PER_ADDRESS: sign-in links one address may get per hour, default 5
	SignInPerClient  int            // SIGNIN_PER_CLIENT: sign-in requests one client address may make per hour, default 30

	TemporalAddress   string // TEMPORAL_ADDRESS; empty under `dev` starts the embedded server
	TemporalNamespace string // TEMPORAL_NAMESPACE, default "default"
	TemporalDevAddr   string // TEMPORAL_DEV_ADDR: frontend of the embedded server, default 127.0.0.1:7233
	TemporalUIAddr    string // TEMPORAL_UI_ADDR: UI of the embedded server, default 127.0.0.1:8233 ("off" disables)
	TemporalUIURL     string // TEMPORAL_UI_URL: where operators open the UI (links in logs), default http://<UI addr>
	// A Temporal cluster with TLS: TEMPORAL_TLS_CA_FILE alone verifies the server; with TEMPORAL_TLS_CERT_FILE and
	// TEMPORAL_TLS_KEY_FILE the client also authenticates (mTLS). TEMPORAL_API_KEY (Temporal Cloud) turns TLS on.
	TemporalTLSCAFile     string
	TemporalTLSCertFile   string
	TemporalTLSKeyFile    string
	TemporalTLSServerName string // TEMPORAL_TLS_SERVER_NAME: overrides the name checked in the server certificate
	TemporalAPIKey        string // TEMPORAL_API_KEY (masked)
	RetryPolicyFile       string // RETRY_POLICY_FILE: empty uses temporal/retry-policy.json as built in
	WorkerActivities      int    // WORKER_MAX_ACTIVITIES: concurrent activities per worker, default 200

	IssuerKeyRing string // ISSUER_KEY_RING "kid:base64key,…"; `dev` generates DATA_DIR/issuer-keyring when unset

	ChainRPCURL     string // CHAIN_RPC_URL; empty under `dev` starts the embedded dev chain, elsewhere disables anchoring
	DevChainAddr    string // DEV_CHAIN_ADDR: JSON-RPC listener of the embedded dev chain (`dev`), default 127.0.0.1:8545
	ChainPrivateKey string // CHAIN_PRIVATE_KEY: hex secp256k1 key of the sender
	ChainTo         string // CHAIN_TO: target address, default the sender
	ChainID         uint64 // CHAIN_ID: expected chain id, 0 accepts the node's
	// ANCHOR_WAIT: the longest a signed credential waits for others to share its anchor transaction, default 2s.
	// Longer waits mean fewer transactions (cost on a real network) and later anchors.
	AnchorWait time.Duration
	// ANCHOR_MIN_WAIT: how long a batch waits at least, even when no other credential is on its way, default 0
	// (an issuance is anchored as soon as all its chunks are signed). Raise it to gather a trickle of small
	// issuances into fewer transactions.
	AnchorMinWait time.Duration

	SMTPHost     string // SMTP_HOST; empty delivers to the outbox directory
	SMTPPort     int    // SMTP_PORT, default 587
	SMTPUsername string // SMTP_USERNAME
	SMTPPassword string // SMTP_PASSWORD (masked in logs)
	SMTPFrom     string // SMTP_FROM, default "badged <no-reply@localhost>"
	// SMTP_FROM_NAME: the From display name of recipient mails, "{org}" standing for the organization's name,
	// default "{org} via badged"; the address stays SMTP_FROM's.
	SMTPFromName string
	SMTPTLS      string // SMTP_TLS: mandatory, opportunistic or none; default mandatory
	OutboxDir    string // OUTBOX_DIR, default DATA_DIR/outbox

	KakaoEndpoint     string // KAKAO_ENDPOINT; empty: KakaoTalk recipients go to the outbox
	KakaoAPIKey       string // KAKAO_API_KEY (masked)
	KakaoSenderKey    string // KAKAO_SENDER_KEY
	KakaoTemplateCode string // KAKAO_TEMPLATE_CODE

	BlobBackend string // BLOB_BACKEND: local (default) or s3
	S3Endpoint  string // S3_ENDPOINT: empty uses AWS
	S3Region    string // S3_REGION, default us-east-1
	S3Bucket    string // S3_BUCKET (required with s3)
	S3AccessKey string // S3_ACCESS_KEY
	S3SecretKey string // S3_SECRET_KEY (masked)
	S3PathStyle bool   // S3_PATH_STYLE: true for MinIO/versitygw

	// Webhooks. The URL rules default to true in builds with `badged dev` and to false in production builds
	// (-tags production), so local receivers work under `make run` and production refuses them.
	WebhookAllowHTTP            bool          // WEBHOOK_ALLOW_HTTP: http:// endpoint URLs besides https://
	WebhookAllowPrivate         bool          // WEBHOOK_ALLOW_PRIVATE: loopback, private, link-local addresses, at create and at delivery
	WebhookTimeout              time.Duration // WEBHOOK_TIMEOUT: one attempt's HTTP timeout, default 10s, at most 30s
	WebhookDispatchInterval     time.Duration // WEBHOOK_DISPATCH_INTERVAL: how often the outbox is read, default 1s
	WebhookDisableAfter         time.Duration // WEBHOOK_DISABLE_AFTER: an endpoint failing every attempt this long is disabled, default 72h; 0 off
	WebhookDisableAfterFailures int           // WEBHOOK_DISABLE_AFTER_FAILURES: disabled after this many deliveries in a row failed, default 20; 0 off
	WebhookRetention            time.Duration // WEBHOOK_RETENTION: finished events and their delivery logs are kept this long, default 720h

	// StatsFlushInterval (STATS_FLUSH_INTERVAL): how often the API adds its badge event counters (views,
	// verifications, PDF downloads, share clicks) to Postgres, default 5s; also flushed on graceful shutdown.
	StatsFlushInterval time.Duration
}

// Load reads the configuration with getenv (os.Getenv in main, a map in tests) and validates it.
func Load(getenv func(string) string) (Config, error) {
	env := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	var errs []error
	c := Config{
		HTTPAddr:    env("HTTP_ADDR", ":8080"),
		DatabaseURL: env("DATABASE_URL", "postgres://postgres@localhost:5432/badged?sslmode=disable"),
		DataDir:     env("DATA_DIR", ".data"),
		LogFormat:   env("LOG_FORMAT", "json"),
	}
	c.BlobDir = env("BLOB_DIR", c.DataDir+"/blobs")
	c.PublicBaseURL = strings.TrimRight(env("PUBLIC_BASE_URL", defaultBaseURL(c.HTTPAddr)), "/")
	if u, err := url.Parse(c.PublicBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("PUBLIC_BASE_URL %q: must be an absolute http(s) URL", c.PublicBaseURL))
	}
	loc, err := time.LoadLocation(env("TIME_ZONE", "Asia/Seoul"))
	if err != nil {
		errs = append(errs, fmt.Errorf("TIME_ZONE: %w", err))
	}
	c.TimeZone = loc
	c.MediaMaxBytes = intEnv(env, "MEDIA_MAX_BYTES", 5<<20, 1024, 100<<20, &errs)
	c.MediaMaxPixels = intEnv(env, "MEDIA_MAX_PIXELS", 40_000_000, 1, 400_000_000, &errs)
	c.MediaDecodeMem = int64(intEnv(env, "MEDIA_DECODE_BUDGET_BYTES", 256<<20, 16<<20, 1<<40, &errs))
	c.ShutdownTimeout, err = time.ParseDuration(env("SHUTDOWN_TIMEOUT", "20s"))
	if err != nil || c.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("SHUTDOWN_TIMEOUT %q: must be a positive duration such as 20s", env("SHUTDOWN_TIMEOUT", "")))
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL: %w", err))
	}
	// Loopback by default: the metrics name routes, error codes and volumes, for the operator's Prometheus, not for
	// whoever reaches the API. A deployment whose Prometheus scrapes over the network sets METRICS_ADDR=:9090.
	c.MetricsAddr = env("METRICS_ADDR", "127.0.0.1:9090")
	c.RateLimitRPS = intEnv(env, "RATE_LIMIT_RPS", 50, 0, 1_000_000, &errs)
	c.RateLimitBurst = intEnv(env, "RATE_LIMIT_BURST", 100, 1, 1_000_000, &errs)
	c.SignInPerAddress = intEnv(env, "SIGNIN_PER_ADDRESS", 5, 1, 1000, &errs)
	c.SignInPerClient = intEnv(env, "SIGNIN_PER_CLIENT", 30, 1, 1_000_000, &errs)
	c.KeyCacheTTL, err = time.ParseDuration(env("API_KEY_CACHE_TTL", "5s"))
	if err != nil || c.KeyCacheTTL < 0 || c.KeyCacheTTL > time.Minute {
		errs = append(errs, fmt.Errorf("API_KEY_CACHE_TTL %q: must be a duration from 0 (off) to 1m, such as 5s", env("API_KEY_CACHE_TTL", "")))
	}
	c.StuckAfter, err = time.ParseDuration(env("STUCK_ISSUANCE_AFTER", "30m"))
	if err != nil || c.StuckAfter <= 0 {
		errs = append(errs, fmt.Errorf("STUCK_ISSUANCE_AFTER %q: must be a positive duration such as 30m", env("STUCK_ISSUANCE_AFTER", "")))
	}
	c.OrphanAfter, err = time.ParseDuration(env("ORPHAN_AFTER", "1m"))
	if err != nil || c.OrphanAfter < time.Second || c.OrphanAfter > 24*time.Hour {
		errs = append(errs, fmt.Errorf("ORPHAN_AFTER %q: must be a duration between 1s and 24h such as 1m", env("ORPHAN_AFTER", "")))
	}
	c.RedriveWindow = durationEnv(env, "REDRIVE_WINDOW", "24h", 0, 30*24*time.Hour, &errs)
	if c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Errorf("LOG_FORMAT %q: must be json or text", c.LogFormat))
	}
	c.TemporalAddress = env("TEMPORAL_ADDRESS", "")
	c.TemporalNamespace = env("TEMPORAL_NAMESPACE", "default")
	c.TemporalDevAddr = env("TEMPORAL_DEV_ADDR", "127.0.0.1:7233")
	c.TemporalUIAddr = env("TEMPORAL_UI_ADDR", "127.0.0.1:8233")
	c.TemporalUIURL = env("TEMPORAL_UI_URL", "http://"+c.TemporalUIAddr)
	c.TemporalTLSCAFile = env("TEMPORAL_TLS_CA_FILE", "")
	c.TemporalTLSCertFile = env("TEMPORAL_TLS_CERT_FILE", "")
	c.TemporalTLSKeyFile = env("TEMPORAL_TLS_KEY_FILE", "")
	c.TemporalTLSServerName = env("TEMPORAL_TLS_SERVER_NAME", "")
	c.TemporalAPIKey = env("TEMPORAL_API_KEY", "")
	if (c.TemporalTLSCertFile == "") != (c.TemporalTLSKeyFile == "") {
		errs = append(errs, errors.New("TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together (mTLS)"))
	}
	c.RetryPolicyFile = env("RETRY_POLICY_FILE", "")
	c.WorkerActivities = intEnv(env, "WORKER_MAX_ACTIVITIES", 200, 1, 10_000, &errs)
	c.IssuerKeyRing = env("ISSUER_KEY_RING", "")
	c.ChainRPCURL = env("CHAIN_RPC_URL", "")
	c.ChainPrivateKey = env("CHAIN_PRIVATE_KEY", "")
	c.DevChainAddr = env("DEV_CHAIN_ADDR", "127.0.0.1:8545")
	if !validAddr(c.DevChainAddr) {
		errs = append(errs, fmt.Errorf("DEV_CHAIN_ADDR %q: must be host:port such as 127.0.0.1:8545", c.DevChainAddr))
	}
	c.ChainTo = env("CHAIN_TO", "")
	c.ChainID = uint64(intEnv(env, "CHAIN_ID", 0, 0, 1<<31, &errs))
	c.AnchorWait, err = time.ParseDuration(env("ANCHOR_WAIT", "2s"))
	if err != nil || c.AnchorWait <= 0 || c.AnchorWait > 10*time.Minute {
		errs = append(errs, fmt.Errorf("ANCHOR_WAIT %q: must be a duration between 1ms and 10m such as 2s", env("ANCHOR_WAIT", "")))
	}
	c.AnchorMinWait, err = time.ParseDuration(env("ANCHOR_MIN_WAIT", "0s"))
	if err != nil || c.AnchorMinWait < 0 || c.AnchorMinWait > c.AnchorWait {
		errs = append(errs, fmt.Errorf("ANCHOR_MIN_WAIT %q: must be a duration between 0 and ANCHOR_WAIT such as 500ms", env("ANCHOR_MIN_WAIT", "")))
	}
	if c.ChainRPCURL != "" && c.ChainPrivateKey == "" {
		errs = append(errs, errors.New("CHAIN_PRIVATE_KEY is required with CHAIN_RPC_URL"))
	}
	c.SMTPHost = env("SMTP_HOST", "")
	c.SMTPPort = intEnv(env, "SMTP_PORT", 587, 1, 65535, &errs)
	c.SMTPUsername = env("SMTP_USERNAME", "")
	c.SMTPPassword = env("SMTP_PASSWORD", "")
	c.SMTPFrom = env("SMTP_FROM", "badged <no-reply@localhost>")
	c.SMTPFromName = env("SMTP_FROM_NAME", "{org} via badged")
	if strings.ContainsAny(c.SMTPFromName, "\r\n") || len(c.SMTPFromName) > 200 {
		errs = append(errs, fmt.Errorf("SMTP_FROM_NAME %q: must be one line of at most 200 bytes", c.SMTPFromName))
	}
	c.SMTPTLS = env("SMTP_TLS", "mandatory")
	if c.SMTPTLS != "mandatory" && c.SMTPTLS != "opportunistic" && c.SMTPTLS != "none" {
		errs = append(errs, fmt.Errorf("SMTP_TLS %q: must be mandatory, opportunistic or none", c.SMTPTLS))
	}
	c.OutboxDir = env("OUTBOX_DIR", c.DataDir+"/outbox")
	c.KakaoEndpoint = env("KAKAO_ENDPOINT", "")
	c.KakaoAPIKey = env("KAKAO_API_KEY", "")
	c.KakaoSenderKey = env("KAKAO_SENDER_KEY", "")
	c.KakaoTemplateCode = env("KAKAO_TEMPLATE_CODE", "")
	c.BlobBackend = env("BLOB_BACKEND", "local")
	c.S3Endpoint = env("S3_ENDPOINT", "")
	c.S3Region = env("S3_REGION", "us-east-1")
	c.S3Bucket = env("S3_BUCKET", "")
	c.S3AccessKey = env("S3_ACCESS_KEY", "")
	c.S3SecretKey = env("S3_SECRET_KEY", "")
	c.S3PathStyle = env("S3_PATH_STYLE", "false") == "true"
	switch {
	case c.BlobBackend != "local" && c.BlobBackend != "s3":
		errs = append(errs, fmt.Errorf("BLOB_BACKEND %q: must be local or s3", c.BlobBackend))
	case c.BlobBackend == "s3" && c.S3Bucket == "":
		errs = append(errs, errors.New("S3_BUCKET is required with BLOB_BACKEND=s3"))
	}
	c.loadWebhooks(env, &errs)
	return c, errors.Join(errs...)
}

func (c *Config) loadWebhooks(env func(string, string) string, errs *[]error) {
	c.WebhookAllowHTTP = boolEnv(env, "WEBHOOK_ALLOW_HTTP", devBuild, errs)
	c.WebhookAllowPrivate = boolEnv(env, "WEBHOOK_ALLOW_PRIVATE", devBuild, errs)
	c.WebhookTimeout = durationEnv(env, "WEBHOOK_TIMEOUT", "10s", time.Second, 30*time.Second, errs)
	c.WebhookDispatchInterval = durationEnv(env, "WEBHOOK_DISPATCH_INTERVAL", "1s", 10*time.Millisecond, time.Minute, errs)
	c.WebhookDisableAfter = durationEnv(env, "WEBHOOK_DISABLE_AFTER", "72h", 0, 90*24*time.Hour, errs)
	c.WebhookDisableAfterFailures = intEnv(env, "WEBHOOK_DISABLE_AFTER_FAILURES", 20, 0, 1_000_000, errs)
	c.WebhookRetention = durationEnv(env, "WEBHOOK_RETENTION", "720h", time.Hour, 10*365*24*time.Hour, errs)
	c.StatsFlushInterval = durationEnv(env, "STATS_FLUSH_INTERVAL", "5s", 100*time.Millisecond, 5*time.Minute, errs)
}

func boolEnv(env func(string, string) string, name string, def bool, errs *[]error) bool {
	s := env(name, strconv.FormatBool(def))
	v, err := strconv.ParseBool(s)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s %q: must be true or false", name, s))
		return def
	}
	return v
}

func durationEnv(env func(string, string) string, name, def string, min, max time.Duration, errs *[]error) time.Duration {
	s := env(name, def)
	d, err := time.ParseDuration(s)
	if err != nil || d < min || d > max {
		*errs = append(*errs, fmt.Errorf("%s %q: must be a duration between %s and %s", name, s, min, max))
		d, _ = time.ParseDuration(def)
	}
	return d
}

func intEnv(env func(string, string) string, name string, def, min, max int, errs *[]error) int {
	s := env(name, strconv.Itoa(def))
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		*errs = append(*errs, fmt.Errorf("%s %q: must be a whole number in [%d, %d]", name, s, min, max))
		return def
	}
	return n
}

// validAddr reports whether addr is host:port with a numeric port (0 picks a free one), as net.Listen takes it.
func validAddr(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 0 && n <= 65535
}

func defaultBaseURL(addr string) string {
	host, port, found := strings.Cut(addr, ":")
	if !found {
		return "http://localhost:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + host + ":" + port
}

// TemporalTLS reports whether the Temporal client connects over TLS.
func (c Config) TemporalTLS() bool {
	return c.TemporalTLSCAFile != "" || c.TemporalTLSCertFile != "" || c.TemporalTLSServerName != "" || c.TemporalAPIKey != ""
}

// LogValue logs the configuration with the database password masked.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("http_addr", c.HTTPAddr), slog.String("public_base_url", c.PublicBaseURL),
		slog.String("database_url", maskURL(c.DatabaseURL)), slog.String("time_zone", c.TimeZone.String()),
		slog.String("data_dir", c.DataDir), slog.String("blob_dir", c.BlobDir),
		slog.Int("media_max_bytes", c.MediaMaxBytes), slog.Int("media_max_pixels", c.MediaMaxPixels),
		slog.Int64("media_decode_budget_bytes", c.MediaDecodeMem),
		slog.Duration("shutdown_timeout", c.ShutdownTimeout), slog.String("log_level", c.LogLevel.String()),
		slog.String("metrics_addr", c.MetricsAddr), slog.Duration("stuck_issuance_after", c.StuckAfter),
		slog.Duration("orphan_after", c.OrphanAfter), slog.Duration("redrive_window", c.RedriveWindow),
		slog.Int("rate_limit_rps", c.RateLimitRPS), slog.Int("rate_limit_burst", c.RateLimitBurst),
		slog.Duration("api_key_cache_ttl", c.KeyCacheTTL),
		slog.Int("signin_per_address", c.SignInPerAddress), slog.Int("signin_per_client", c.SignInPerClient),
		slog.String("temporal_address", orDefault(c.TemporalAddress, "(embedded)")),
		slog.String("temporal_namespace", c.TemporalNamespace), slog.Bool("temporal_tls", c.TemporalTLS()),
		slog.Bool("temporal_mtls", c.TemporalTLSCertFile != ""), slog.Bool("temporal_api_key_set", c.TemporalAPIKey != ""),
		slog.String("retry_policy_file", orDefault(c.RetryPolicyFile, "(built in)")),
		slog.Bool("issuer_key_ring_set", c.IssuerKeyRing != ""),
		slog.String("chain_rpc_url", orDefault(c.ChainRPCURL, "(dev chain or off)")), slog.Uint64("chain_id", c.ChainID),
		slog.String("dev_chain_addr", c.DevChainAddr),
		slog.Duration("anchor_wait", c.AnchorWait), slog.Duration("anchor_min_wait", c.AnchorMinWait),
		slog.String("smtp_host", orDefault(c.SMTPHost, "(outbox)")), slog.Int("smtp_port", c.SMTPPort),
		slog.String("smtp_tls", c.SMTPTLS), slog.String("smtp_from_name", c.SMTPFromName), slog.String("outbox_dir", c.OutboxDir),
		slog.String("kakao_endpoint", orDefault(c.KakaoEndpoint, "(outbox)")),
		slog.String("blob_backend", c.BlobBackend), slog.String("s3_endpoint", c.S3Endpoint), slog.String("s3_bucket", c.S3Bucket),
		slog.Bool("webhook_allow_http", c.WebhookAllowHTTP), slog.Bool("webhook_allow_private", c.WebhookAllowPrivate),
		slog.Duration("webhook_timeout", c.WebhookTimeout), slog.Duration("webhook_dispatch_interval", c.WebhookDispatchInterval),
		slog.Duration("webhook_disable_after", c.WebhookDisableAfter), slog.Int("webhook_disable_after_failures", c.WebhookDisableAfterFailures),
		slog.Duration("webhook_retention", c.WebhookRetention), slog.Duration("stats_flush_interval", c.StatsFlushInterval),
	)
}

func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparseable)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
