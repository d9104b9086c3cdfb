package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/mail"
	"os"
	"path/filepath"
	"strings"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/wire"
)

// openBlob returns the configured object store.
func openBlob(ctx context.Context, cfg config.Config) (blob.Store, error) {
	if cfg.BlobBackend == "s3" {
		return blob.NewS3(ctx, blob.S3Options{Endpoint: cfg.S3Endpoint, Region: cfg.S3Region, PathStyle: cfg.S3PathStyle,
			Bucket: cfg.S3Bucket, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey})
	}
	return blob.NewLocal(cfg.BlobDir)
}

// openKeyring returns the keyring that seals issuer keys. Under `dev` without ISSUER_KEY_RING, a key is generated
// once into DATA_DIR/issuer-keyring (mode 0600) so restarts keep opening the same issuer keys.
func openKeyring(cfg config.Config, dev bool) (*credential.Keyring, error) {
	spec := cfg.IssuerKeyRing
	if spec == "" {
		if !dev {
			return nil, errors.New("ISSUER_KEY_RING is required (see README: issuer keys)")
		}
		path := filepath.Join(cfg.DataDir, "issuer-keyring")
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			key := make([]byte, 32)
			if _, err := rand.Read(key); err != nil {
				return nil, err
			}
			data = []byte("dev1:" + base64.StdEncoding.EncodeToString(key))
			if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				return nil, fmt.Errorf("write dev keyring: %w", err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("read dev keyring: %w", err)
		}
		spec = strings.TrimSpace(string(data))
	}
	ring, err := credential.NewKeyring(spec)
	if err != nil {
		return nil, fmt.Errorf("ISSUER_KEY_RING: %w", err)
	}
	return ring, nil
}

// loadPolicy reads the retry policy file, or the built-in default.
func loadPolicy(cfg config.Config) (*retrypolicy.Policy, error) {
	if cfg.RetryPolicyFile != "" {
		return retrypolicy.Load(cfg.RetryPolicyFile)
	}
	return retrypolicy.Parse(temporal.DefaultRetryPolicy)
}

// newSenders returns the notifier for live deliveries and the outbox: without SMTP_HOST (or KAKAO_ENDPOINT) a
// channel delivers to the outbox, which the person running `make run` can read.
func newSenders(cfg config.Config) (*notify.Notifier, *notify.Outbox, string, error) {
	outbox, err := notify.NewOutbox(cfg.OutboxDir, cfg.SMTPFrom)
	if err != nil {
		return nil, nil, "", err
	}
	domain := "localhost"
	if a, err := mail.ParseAddress(cfg.SMTPFrom); err == nil {
		if at := strings.LastIndexByte(a.Address, '@'); at >= 0 {
			domain = a.Address[at+1:]
		}
	}
	n := &notify.Notifier{Email: outbox, Kakao: outbox}
	if cfg.SMTPHost != "" {
		auth := notify.AuthNone
		if cfg.SMTPUsername != "" {
			auth = notify.AuthPlain
		}
		smtp, err := notify.NewSMTP(notify.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort, TLS: notify.TLSPolicy(cfg.SMTPTLS),
			Auth: auth, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword, From: cfg.SMTPFrom, MessageIDDomain: domain})
		if err != nil {
			return nil, nil, "", fmt.Errorf("smtp: %w", err)
		}
		n.Email = smtp
	}
	if cfg.KakaoEndpoint != "" {
		k, err := notify.NewKakao(notify.KakaoConfig{Endpoint: cfg.KakaoEndpoint, APIKey: cfg.KakaoAPIKey,
			SenderKey: cfg.KakaoSenderKey, TemplateCode: cfg.KakaoTemplateCode})
		if err != nil {
			return nil, nil, "", fmt.Errorf("kakao: %w", err)
		}
		n.Kakao = k
	}
	return n, outbox, domain, nil
}

// openParts opens what the API and the worker share: the object store, the issuer keyring, the chain's settings
// and the Temporal client (measured by m), on the pool d; under dev, a missing keyring is generated (openKeyring).
// Its errors are *startError, naming the part.
func openParts(ctx context.Context, cfg config.Config, dev bool, d *db.DB, m *metrics.Metrics, log *slog.Logger) (wire.Parts, error) {
	p := wire.Parts{DB: d, BaseURL: cfg.PublicBaseURL, Location: cfg.TimeZone, Log: log, Metrics: m, WebhookURLs: webhookURLs(cfg),
		RedriveWindow: cfg.RedriveWindow}
	var err error
	if p.Blob, err = openBlob(ctx, cfg); err != nil {
		setting := "BLOB_DIR"
		if cfg.BlobBackend == "s3" {
			setting = "S3_ENDPOINT, S3_BUCKET"
		}
		return p, startFailed("object store", setting, err)
	}
	if p.Keyring, err = openKeyring(cfg, dev); err != nil {
		return p, startFailed("issuer keyring", "", err) // its errors name ISSUER_KEY_RING or the dev keyring's file
	}
	p.Anchoring = anchorAccount(ctx, cfg, log)
	if cfg.ChainRPCURL != "" {
		p.Chain = &chain.Config{RPCURL: cfg.ChainRPCURL, PrivateKey: cfg.ChainPrivateKey, To: cfg.ChainTo, ChainID: cfg.ChainID}
	}
	p.Client, err = dialTemporal(ctx, cfg, cfg.TemporalAddress, log, m.TemporalHandler())
	return p, startFailed("temporal client", "TEMPORAL_ADDRESS", err)
}

// newWorker returns the worker's settings on its pool wd.
func newWorker(cfg config.Config, wd *db.DB) (wire.Worker, error) {
	policy, err := loadPolicy(cfg)
	if err != nil {
		return wire.Worker{}, err
	}
	notifier, outbox, domain, err := newSenders(cfg)
	if err != nil {
		return wire.Worker{}, err
	}
	acts := &activities.Activities{Notifier: notifier, Outbox: outbox, MessageDomain: domain, MailFromName: cfg.SMTPFromName,
		Policy: policy, AnchorWait: cfg.AnchorWait, AnchorMinWait: cfg.AnchorMinWait,
		Webhooks: activities.Webhooks{Sender: webhook.NewSender(webhookURLs(cfg), cfg.WebhookTimeout),
			DisableAfter: cfg.WebhookDisableAfter, DisableAfterFailures: cfg.WebhookDisableAfterFailures}}
	return wire.Worker{DB: wd, Acts: acts, Options: temporal.WorkerOptions{MaxConcurrentActivities: cfg.WorkerActivities,
		StopTimeout: cfg.ShutdownTimeout}, DispatchInterval: cfg.WebhookDispatchInterval, WebhookRetention: cfg.WebhookRetention,
		Housekeeping: true, OrphanAfter: cfg.OrphanAfter, Namespace: cfg.TemporalNamespace}, nil
}

// webhookURLs is what webhook endpoint URLs may point at, checked at creation (API, admin) and at delivery.
func webhookURLs(cfg config.Config) webhook.URLPolicy {
	return webhook.URLPolicy{AllowHTTP: cfg.WebhookAllowHTTP, AllowPrivate: cfg.WebhookAllowPrivate}
}
