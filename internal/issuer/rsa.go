package issuer

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/errcode"
)

// rsaKeyAAD binds sealed values to their use as RS256 issuer keys.
var rsaKeyAAD = []byte("issuer-rsa-pkcs8")

// rsaBits is the size of the RS256 keys (RFC 7518 asks at least 2048).
const rsaBits = 2048

// RSAKey returns the RS256 key of the organization's issuer of mode (OB 3.0 asks JWT issuers for RS256), creating
// it on first use. Concurrent first uses keep exactly one key.
func (s *Service) RSAKey(ctx context.Context, org uuid.UUID, mode string) (*rsa.PrivateKey, error) {
	if mode != apikey.ModeLive && mode != apikey.ModeTest {
		return nil, errcode.New(errcode.IssuerKeyGenerationFailed, fmt.Sprintf("no issuer of mode %q", mode))
	}
	if k, ok := s.opened.load("rsa", org, mode); ok {
		return k.(*rsa.PrivateKey), nil
	}
	row, err := s.DB.GetIssuerRSAKey(ctx, db.GetIssuerRSAKeyParams{OrgID: org, Mode: mode})
	if db.IsNotFound(err) {
		if s.Keyring == nil {
			return nil, errcode.New(errcode.IssuerKeyGenerationFailed, "no keyring configured")
		}
		priv, gerr := rsa.GenerateKey(rand.Reader, rsaBits)
		if gerr != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "generate rsa key", gerr)
		}
		der, gerr := x509.MarshalPKCS8PrivateKey(priv)
		if gerr != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "encode rsa key", gerr)
		}
		pub, gerr := x509.MarshalPKIXPublicKey(&priv.PublicKey)
		if gerr != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "encode rsa public key", gerr)
		}
		sealed, gerr := s.Keyring.Seal(der, rsaKeyAAD)
		if gerr != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "seal rsa key", gerr)
		}
		if err := s.DB.CreateIssuerRSAKey(ctx, db.CreateIssuerRSAKeyParams{OrgID: org, Mode: mode, PublicKey: pub, SealedKey: string(sealed)}); err != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "store rsa key", err)
		}
		row, err = s.DB.GetIssuerRSAKey(ctx, db.GetIssuerRSAKeyParams{OrgID: org, Mode: mode})
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "load rsa key", err)
	}
	der, err := s.Keyring.Open([]byte(row.SealedKey), rsaKeyAAD)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialSigningFailed, "open rsa key", err)
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialSigningFailed, "parse rsa key", err)
	}
	priv, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errcode.New(errcode.CredentialSigningFailed, "sealed rsa key is not RSA")
	}
	s.opened.store("rsa", org, mode, priv)
	return priv, nil
}

// RSAPublicKey returns the RS256 verification key of the organization's issuer of mode; found is false before its
// first VC-JWT in that mode.
func (s *Service) RSAPublicKey(ctx context.Context, org uuid.UUID, mode string) (pub *rsa.PublicKey, found bool, err error) {
	row, err := s.DB.GetIssuerRSAKey(ctx, db.GetIssuerRSAKeyParams{OrgID: org, Mode: mode})
	if db.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	k, err := x509.ParsePKIXPublicKey(row.PublicKey)
	if err != nil {
		return nil, false, fmt.Errorf("parse rsa public key: %w", err)
	}
	rk, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, false, fmt.Errorf("stored rsa public key is not RSA")
	}
	return rk, true, nil
}
