// Package config reads badged's configuration from the environment. Only cmd/badged imports it; every other
// package takes explicit values.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the service, with its environment variable and default.
type Config struct {
	HTTPAddr        string         // HTTP_ADDR, default ":8080"
	PublicBaseURL   string         // PUBLIC_BASE_URL, default "http://localhost<HTTP_ADDR port>"
	DatabaseURL     string         // DATABASE_URL, default the local Postgres, database badged
	TimeZone        *time.Location // TIME_ZONE, default Asia/Seoul (v2 datetimes, expiry calendar)
	DataDir         string         // DATA_DIR, default ".data": the embedded default keeps its files here
	BlobDir         string         // BLOB_DIR, default DATA_DIR/blobs
	MediaMaxBytes   int            // MEDIA_MAX_BYTES, default 5 MiB
	MediaMaxPixels  int            // MEDIA_MAX_PIXELS, default 40,000,000
	ShutdownTimeout time.Duration  // SHUTDOWN_TIMEOUT, default 20s
	LogLevel        slog.Level     // LOG_LEVEL: debug, info, warn, error; default info
	LogFormat       string         // LOG_FORMAT: json or text; default json
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
	c.ShutdownTimeout, err = time.ParseDuration(env("SHUTDOWN_TIMEOUT", "20s"))
	if err != nil || c.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("SHUTDOWN_TIMEOUT %q: must be a positive duration such as 20s", env("SHUTDOWN_TIMEOUT", "")))
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL: %w", err))
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Errorf("LOG_FORMAT %q: must be json or text", c.LogFormat))
	}
	return c, errors.Join(errs...)
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

// LogValue logs the configuration with the database password masked.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("http_addr", c.HTTPAddr), slog.String("public_base_url", c.PublicBaseURL),
		slog.String("database_url", maskURL(c.DatabaseURL)), slog.String("time_zone", c.TimeZone.String()),
		slog.String("data_dir", c.DataDir), slog.String("blob_dir", c.BlobDir),
		slog.Int("media_max_bytes", c.MediaMaxBytes), slog.Int("media_max_pixels", c.MediaMaxPixels),
		slog.Duration("shutdown_timeout", c.ShutdownTimeout), slog.String("log_level", c.LogLevel.String()),
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
