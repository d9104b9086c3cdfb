// Package webhook is badged's side of Standard Webhooks (standardwebhooks.com): endpoint secrets, signing and
// verifying, the events and their payloads, recording events in the outbox, and the URL rules of endpoints.
//
// It imports only db (the outbox and endpoints); the deliveries' steps are activities'.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Headers of every delivery (Standard Webhooks).
const (
	HeaderID        = "webhook-id"        // the event id: the same on every retry and redelivery, so receivers dedupe by it
	HeaderTimestamp = "webhook-timestamp" // unix seconds of this attempt
	HeaderSignature = "webhook-signature" // "v1," + base64(HMAC-SHA256(key, id.timestamp.body)); space-separated if several
)

// SecretPrefix starts every endpoint secret; the rest is the base64 of the HMAC key.
const SecretPrefix = "whsec_"

// secretBytes is the HMAC key length: 24 bytes is the Standard Webhooks minimum, 32 matches SHA-256's block use.
const secretBytes = 32

// NewSecret returns a fresh endpoint secret, "whsec_" + base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey decodes the HMAC key of a secret; the "whsec_" prefix is optional, as in the reference libraries.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) < 24 {
		return nil, errors.New("webhook secret: must be whsec_ + base64 of at least 24 bytes")
	}
	return key, nil
}

// Sign returns the webhook-signature value of body sent as message id at ts.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts.Unix(), body)), nil
}

func mac(key []byte, id string, ts int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write([]byte(strconv.FormatInt(ts, 10)))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// DefaultTolerance is how far a delivery's timestamp may be from the receiver's clock (replay protection).
const DefaultTolerance = 5 * time.Minute

// Verification errors.
var (
	ErrMissingHeaders   = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrTimestamp        = errors.New("webhook: timestamp outside the tolerance")
	ErrNoMatchingSigner = errors.New("webhook: no matching v1 signature")
)

// Verify checks a delivery as a receiver does: the three headers are present, the timestamp is within tolerance of
// now, and one of the space-separated v1 signatures is the HMAC of "id.timestamp.body" under secret (compared in
// constant time). It returns the event id, which receivers use to drop duplicates (delivery is at least once).
func Verify(secret string, h http.Header, body []byte, tolerance time.Duration, now time.Time) (string, error) {
	id, tsText, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || tsText == "" || sigs == "" {
		return "", ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return "", ErrTimestamp
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return "", ErrTimestamp
	}
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	want := mac(key, id, ts, body)
	for _, s := range strings.Fields(sigs) {
		v, sig, ok := strings.Cut(s, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return id, nil
		}
	}
	return "", ErrNoMatchingSigner
}
