// Package issuer is the organization as a credential issuer: its Ed25519 key (created on first use, sealed at
// rest), its Bitstring Status Lists, and the public URLs of everything a verifier resolves. The pipeline
// activities and the API's public routes share it, so both derive the same ids.
package issuer

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/errcode"
)

// Service holds what issuing needs.
type Service struct {
	DB      *db.DB
	Keyring *credential.Keyring
	BaseURL string // PUBLIC_BASE_URL, no trailing slash
	// StatusListSize is the entries of each new status list; zero means StatusListBits. Tests set a tiny size
	// to watch lists fill in order; a multiple of 8.
	StatusListSize int
	// Anchoring names the chain account that sends anchor transactions, so the controller document can name it;
	// nil when this deployment anchors nothing.
	Anchoring *AnchorAccount
}

// New returns a Service.
func New(d *db.DB, ring *credential.Keyring, baseURL string) *Service {
	return &Service{DB: d, Keyring: ring, BaseURL: strings.TrimRight(baseURL, "/")}
}

// IssuerID is the organization's issuer id: an HTTPS URL that serves its controller document (Multikey).
func (s *Service) IssuerID(org uuid.UUID) string { return s.BaseURL + "/issuers/" + org.String() }

// CredentialID is the id of an assertion's credential; the same URL returns the signed JSON.
func (s *Service) CredentialID(assertion uuid.UUID) string {
	return s.BaseURL + "/credentials/" + assertion.String()
}

// VerifyURL is the public verification page of an assertion.
func (s *Service) VerifyURL(assertion uuid.UUID) string {
	return s.BaseURL + "/verify/" + assertion.String()
}

// CertificateURL is the recipient's PDF certificate: no key, but only to whoever holds the assertion's
// certificate_token, which the recipient's mail carries and the public badge page never shows.
func (s *Service) CertificateURL(assertion, token uuid.UUID) string {
	return s.BaseURL + "/credentials/" + assertion.String() + "/certificate.pdf?token=" + token.String()
}

// ReceiptURL is the public anchor receipt of an assertion's credential (chain, transaction, digest, Merkle proof).
func (s *Service) ReceiptURL(assertion uuid.UUID) string {
	return s.BaseURL + "/credentials/" + assertion.String() + "/receipt"
}

// StatusListURL is the id of a status list credential.
func (s *Service) StatusListURL(list uuid.UUID) string {
	return s.BaseURL + "/status-lists/" + list.String()
}

// AchievementID identifies a badge inside credentials.
func (s *Service) AchievementID(badge uuid.UUID) string {
	return s.BaseURL + "/achievements/" + badge.String()
}

// Key returns the organization's signing key, creating it on first use. Concurrent first uses keep exactly one
// key. Failures are ISSUER_KEY_GENERATION_FAILED.
func (s *Service) Key(ctx context.Context, org uuid.UUID) (ed25519.PrivateKey, error) {
	k, err := s.DB.GetIssuerKey(ctx, org)
	if db.IsNotFound(err) {
		pub, sealed, gerr := credential.GenerateIssuerKey(s.Keyring)
		if gerr != nil {
			return nil, gerr
		}
		if err := s.DB.CreateIssuerKey(ctx, db.CreateIssuerKeyParams{OrgID: org, PublicKey: pub, SealedKey: string(sealed)}); err != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "store issuer key", err)
		}
		k, err = s.DB.GetIssuerKey(ctx, org)
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "load issuer key", err)
	}
	return credential.OpenIssuerKey(s.Keyring, []byte(k.SealedKey))
}

// PublicKey returns the organization's public key; found is false before its first issuance.
func (s *Service) PublicKey(ctx context.Context, org uuid.UUID) (pub ed25519.PublicKey, found bool, err error) {
	k, err := s.DB.GetIssuerKey(ctx, org)
	if db.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return ed25519.PublicKey(k.PublicKey), true, nil
}

// VerificationMethod is the key id a proof names.
func (s *Service) VerificationMethod(org uuid.UUID, pub ed25519.PublicKey) string {
	return credential.VerificationMethodID(s.IssuerID(org), pub)
}

// ControllerDocument is what the issuer id serves: the Multikey its proofs name and, when this deployment
// anchors, the account that sends its anchor transactions (anchor.go).
func (s *Service) ControllerDocument(ctx context.Context, org uuid.UUID) (map[string]any, bool, error) {
	pub, found, err := s.PublicKey(ctx, org)
	if err != nil || !found {
		return nil, found, err
	}
	doc := credential.ControllerDocument(s.IssuerID(org), pub)
	if s.Anchoring != nil {
		AddAnchorAccount(doc, s.IssuerID(org), *s.Anchoring)
	}
	return doc, true, nil
}

// Sign signs a credential document with the organization's key; created is fixed by the caller (the issue
// time), so a retried step produces the same bytes.
func (s *Service) Sign(ctx context.Context, org uuid.UUID, doc any, created time.Time) ([]byte, error) {
	signer, err := s.Signer(ctx, org)
	if err != nil {
		return nil, err
	}
	return signer.Sign(ctx, doc, created)
}

// Signer signs credentials of one organization with its key, read and unsealed once for many credentials.
type Signer struct {
	key ed25519.PrivateKey
	vm  string // the verification method the proofs name
}

// Signer returns the organization's signer, creating its key on first use (see Key).
func (s *Service) Signer(ctx context.Context, org uuid.UUID) (*Signer, error) {
	key, err := s.Key(ctx, org)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, vm: s.VerificationMethod(org, key.Public().(ed25519.PublicKey))}, nil
}

// Sign signs one credential document; it is safe for concurrent use.
func (g *Signer) Sign(ctx context.Context, doc any, created time.Time) ([]byte, error) {
	out, err := credential.Sign(ctx, doc, g.key, credential.SignOptions{VerificationMethod: g.vm, Created: created})
	if err != nil {
		return nil, fmt.Errorf("sign credential: %w", err)
	}
	return out, nil
}
