package config

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLogValue_MasksSecrets loads a configuration whose every secret is set and checks that logging it, as serve
// does at start-up, writes none of them, in either log format.
func TestLogValue_MasksSecrets(t *testing.T) {
	secrets := map[string]string{
		"SMTP_PASSWORD":     "smtp-pa55word-7f3a",
		"S3_SECRET_KEY":     "s3-secret-Zx81kQ",
		"S3_ACCESS_KEY":     "AKIAEXAMPLEACCESS",
		"KAKAO_API_KEY":     "kakao-api-key-91bc",
		"KAKAO_SENDER_KEY":  "kakao-sender-key-55de",
		"ISSUER_KEY_RING":   "k1:c2VjcmV0LWlzc3Vlci1rZXktYnl0ZXMtMzI=",
		"CHAIN_PRIVATE_KEY": "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
	}
	const dbPassword = "db-pa55-q9"
	env := map[string]string{
		"DATABASE_URL":  "postgres://badged:" + dbPassword + "@db.internal:5432/badged?sslmode=require",
		"SMTP_HOST":     "smtp.example.com",
		"SMTP_USERNAME": "mailer",
		"CHAIN_RPC_URL": "http://127.0.0.1:8545",
		"BLOB_BACKEND":  "s3",
		"S3_BUCKET":     "badges",
	}
	for k, v := range secrets {
		env[k] = v
	}
	secrets["DATABASE_URL password"] = dbPassword

	cfg, err := Load(func(name string) string { return env[name] })
	require.NoError(t, err)
	require.Equal(t, secrets["SMTP_PASSWORD"], cfg.SMTPPassword, "the secret was loaded, so the test can fail")
	require.Equal(t, secrets["CHAIN_PRIVATE_KEY"], cfg.ChainPrivateKey)

	for name, h := range map[string]func(*bytes.Buffer) slog.Handler{
		"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			slog.New(h(&buf)).Info("configuration", "config", cfg)
			out := buf.String()
			require.Contains(t, out, "smtp.example.com", "the configuration was logged")
			require.Contains(t, out, "db.internal", "the database host stays visible")
			for what, s := range secrets {
				require.NotContains(t, out, s, "%s appears in the log", what)
			}
		})
	}
}

func TestLoad_RateLimit(t *testing.T) {
	load := func(env map[string]string) (Config, error) {
		return Load(func(name string) string { return env[name] })
	}
	cfg, err := load(nil)
	require.NoError(t, err)
	require.Equal(t, 50, cfg.RateLimitRPS)
	require.Equal(t, 100, cfg.RateLimitBurst)

	cfg, err = load(map[string]string{"RATE_LIMIT_RPS": "0", "RATE_LIMIT_BURST": "7"})
	require.NoError(t, err, "0 turns the limit off")
	require.Equal(t, 0, cfg.RateLimitRPS)
	require.Equal(t, 7, cfg.RateLimitBurst)

	for _, env := range []map[string]string{{"RATE_LIMIT_RPS": "-1"}, {"RATE_LIMIT_RPS": "fast"}, {"RATE_LIMIT_BURST": "0"}} {
		_, err := load(env)
		require.Error(t, err, "%v", env)
	}
}

func TestLoad_KeyCacheTTL(t *testing.T) {
	load := func(env map[string]string) (Config, error) {
		return Load(func(name string) string { return env[name] })
	}
	cfg, err := load(nil)
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, cfg.KeyCacheTTL)
	cfg, err = load(map[string]string{"API_KEY_CACHE_TTL": "0"})
	require.NoError(t, err, "0 turns the cache off")
	require.Zero(t, cfg.KeyCacheTTL)
	for _, v := range []string{"-1s", "2m", "soon"} {
		_, err := load(map[string]string{"API_KEY_CACHE_TTL": v})
		require.Error(t, err, v)
	}
}

func TestLoad_MediaDecodeMem(t *testing.T) {
	load := func(env map[string]string) (Config, error) {
		return Load(func(name string) string { return env[name] })
	}
	cfg, err := load(nil)
	require.NoError(t, err)
	require.Equal(t, int64(256<<20), cfg.MediaDecodeMem)

	cfg, err = load(map[string]string{"MEDIA_DECODE_BUDGET_BYTES": "1073741824"})
	require.NoError(t, err)
	require.Equal(t, int64(1<<30), cfg.MediaDecodeMem)

	for _, v := range []string{"0", "1000", "-5", "1GiB", "2000000000000"} {
		_, err := load(map[string]string{"MEDIA_DECODE_BUDGET_BYTES": v})
		require.ErrorContains(t, err, "MEDIA_DECODE_BUDGET_BYTES", "%q", v)
	}
}

func TestLoad_DevChainAddr(t *testing.T) {
	load := func(env map[string]string) (Config, error) {
		return Load(func(name string) string { return env[name] })
	}
	cfg, err := load(nil)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8545", cfg.DevChainAddr)

	cfg, err = load(map[string]string{"DEV_CHAIN_ADDR": "127.0.0.1:18545"})
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:18545", cfg.DevChainAddr)

	for _, v := range []string{"8545", "127.0.0.1", "127.0.0.1:port", "127.0.0.1:70000", "http://127.0.0.1:8545"} {
		_, err := load(map[string]string{"DEV_CHAIN_ADDR": v})
		require.ErrorContains(t, err, "DEV_CHAIN_ADDR", "%q", v)
	}
}
