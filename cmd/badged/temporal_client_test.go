package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/cmd/badged/internal/config"
)

// writePEMPair writes a self-signed certificate and its key, as a cluster's CA or a client certificate would be.
func writePEMPair(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "badged-worker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certFile, keyFile
}

func loadConfig(t *testing.T, env map[string]string) (config.Config, error) {
	t.Helper()
	return config.Load(func(k string) string { return env[k] })
}

func TestTemporalOptions_TLS(t *testing.T) {
	cert, key := writePEMPair(t, t.TempDir())
	log := slog.New(slog.DiscardHandler)

	t.Run("plain by default", func(t *testing.T) {
		cfg, err := loadConfig(t, nil)
		require.NoError(t, err)
		opts, err := temporalOptions(cfg, "temporal:7233", log)
		require.NoError(t, err)
		require.Nil(t, opts.ConnectionOptions.TLS)
		require.Nil(t, opts.Credentials)
	})
	t.Run("server CA", func(t *testing.T) {
		cfg, err := loadConfig(t, map[string]string{"TEMPORAL_TLS_CA_FILE": cert, "TEMPORAL_TLS_SERVER_NAME": "frontend.temporal"})
		require.NoError(t, err)
		opts, err := temporalOptions(cfg, "temporal:7233", log)
		require.NoError(t, err)
		require.NotNil(t, opts.ConnectionOptions.TLS.RootCAs)
		require.Equal(t, "frontend.temporal", opts.ConnectionOptions.TLS.ServerName)
		require.Empty(t, opts.ConnectionOptions.TLS.Certificates)
	})
	t.Run("mTLS", func(t *testing.T) {
		cfg, err := loadConfig(t, map[string]string{"TEMPORAL_TLS_CA_FILE": cert, "TEMPORAL_TLS_CERT_FILE": cert, "TEMPORAL_TLS_KEY_FILE": key})
		require.NoError(t, err)
		opts, err := temporalOptions(cfg, "temporal:7233", log)
		require.NoError(t, err)
		require.Len(t, opts.ConnectionOptions.TLS.Certificates, 1)
	})
	t.Run("API key turns TLS on with the system roots", func(t *testing.T) {
		cfg, err := loadConfig(t, map[string]string{"TEMPORAL_API_KEY": "secret-api-key"})
		require.NoError(t, err)
		opts, err := temporalOptions(cfg, "ns.acct.tmprl.cloud:7233", log)
		require.NoError(t, err)
		require.NotNil(t, opts.ConnectionOptions.TLS)
		require.Nil(t, opts.ConnectionOptions.TLS.RootCAs)
		require.NotNil(t, opts.Credentials)
		require.NotContains(t, slog.AnyValue(cfg).Resolve().String(), "secret-api-key", "the key is not logged")
	})
	t.Run("errors name the variable", func(t *testing.T) {
		_, err := loadConfig(t, map[string]string{"TEMPORAL_TLS_CERT_FILE": cert})
		require.ErrorContains(t, err, "TEMPORAL_TLS_KEY_FILE")
		cfg, err := loadConfig(t, map[string]string{"TEMPORAL_TLS_CA_FILE": filepath.Join(t.TempDir(), "missing.pem")})
		require.NoError(t, err)
		_, err = temporalOptions(cfg, "temporal:7233", log)
		require.ErrorContains(t, err, "TEMPORAL_TLS_CA_FILE")
		cfg, err = loadConfig(t, map[string]string{"TEMPORAL_TLS_CA_FILE": key})
		require.NoError(t, err)
		_, err = temporalOptions(cfg, "temporal:7233", log)
		require.ErrorContains(t, err, "no PEM certificate")
	})
}
