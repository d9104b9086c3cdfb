// Package issuer is the organization as a credential issuer: its Ed25519 key (created on first use, sealed at
// rest), its Bitstring Status Lists, and the public URLs of everything a verifier resolves. The pipeline
// activities and the API's public routes share it, so both derive the same ids.
//
// It may import db, internal/apikey, internal/chain, internal/credential and internal/errcode, never activities or
// api.
package issuer

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
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

	opened keyCache // the issuer keys opened so far (keycache.go)
}

// New returns a Service.
func New(d *db.DB, ring *credential.Keyring, baseURL string) *Service {
	return &Service{DB: d, Keyring: ring, BaseURL: strings.TrimRight(baseURL, "/")}
}

// IssuerID is the id of the organization's issuer of mode, an HTTPS URL that serves its controller document
// (Multikey). An organization issues live credentials as its issuer and test credentials (apikey.ModeTest) as its
// test issuer, with its own id (the live one + "/test"), key and document; the live document never lists the
// test key.
func (s *Service) IssuerID(org uuid.UUID, mode string) string {
	id := s.BaseURL + "/issuers/" + org.String()
	if mode == apikey.ModeTest {
		id += "/test"
	}
	return id
}

// Profile is the issuer Profile that credentials of mode name: the test issuer's name starts with "[TEST] " and
// its description says the credential is a test, in the signed credential itself. Its url is the organization's
// own website (orgURL) when it has one, else its page on this service (OrgPageURL), so the link always leads to
// the issuer; a test issuer's url is the service's root, never the organization's page (which shows no test data).
func (s *Service) Profile(org uuid.UUID, mode, orgName, orgURL string) credential.Issuer {
	p := credential.Issuer{ID: s.IssuerID(org, mode), Name: orgName, URL: orgURL}
	if p.URL == "" {
		p.URL = s.OrgPageURL(org)
	}
	if mode == apikey.ModeTest {
		p.Name, p.Description, p.URL = credential.TestName(orgName), testDescription(orgName), s.BaseURL+"/"
	}
	return p
}

// OrgPageURL is the organization's public page: its live issuer id, which answers the page to a browser and the
// controller document to a machine.
func (s *Service) OrgPageURL(org uuid.UUID) string { return s.IssuerID(org, apikey.ModeLive) }

func testDescription(orgName string) string {
	return "Test-mode issuer of " + orgName + ": the credentials it signs were made with a test API key to try the " +
		"service. They are not real badges and prove nothing about their recipients."
}

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

// Key returns the signing key of the organization's issuer of mode, creating it on first use. Concurrent first
// uses keep exactly one key. Failures are ISSUER_KEY_GENERATION_FAILED.
func (s *Service) Key(ctx context.Context, org uuid.UUID, mode string) (ed25519.PrivateKey, error) {
	if mode != apikey.ModeLive && mode != apikey.ModeTest {
		return nil, errcode.New(errcode.IssuerKeyGenerationFailed, fmt.Sprintf("no issuer of mode %q", mode))
	}
	if k, ok := s.opened.load("ed25519", org, mode); ok {
		return k.(ed25519.PrivateKey), nil
	}
	k, err := s.DB.GetIssuerKey(ctx, db.GetIssuerKeyParams{OrgID: org, Mode: mode})
	if db.IsNotFound(err) {
		pub, sealed, gerr := credential.GenerateIssuerKey(s.Keyring)
		if gerr != nil {
			return nil, gerr
		}
		if err := s.DB.CreateIssuerKey(ctx, db.CreateIssuerKeyParams{OrgID: org, Mode: mode, PublicKey: pub, SealedKey: string(sealed)}); err != nil {
			return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "store issuer key", err)
		}
		k, err = s.DB.GetIssuerKey(ctx, db.GetIssuerKeyParams{OrgID: org, Mode: mode})
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "load issuer key", err)
	}
	key, err := credential.OpenIssuerKey(s.Keyring, []byte(k.SealedKey))
	if err != nil {
		return nil, err
	}
	s.opened.store("ed25519", org, mode, key)
	return key, nil
}

// PublicKey returns the public key of the organization's issuer of mode; found is false before its first
// issuance in that mode.
func (s *Service) PublicKey(ctx context.Context, org uuid.UUID, mode string) (pub ed25519.PublicKey, found bool, err error) {
	k, err := s.DB.GetIssuerKey(ctx, db.GetIssuerKeyParams{OrgID: org, Mode: mode})
	if db.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return ed25519.PublicKey(k.PublicKey), true, nil
}

// VerificationMethod is the key id a proof names.
func (s *Service) VerificationMethod(org uuid.UUID, mode string, pub ed25519.PublicKey) string {
	return credential.VerificationMethodID(s.IssuerID(org, mode), pub)
}

// ControllerDocument is what the issuer id of mode serves: the Multikey its proofs name and, for the live issuer
// of a deployment that anchors, the account that sends its anchor transactions (anchor.go). The test issuer's
// document marks it as such (credential.MarkTestIssuer) and names no anchor account: test credentials are never
// anchored.
func (s *Service) ControllerDocument(ctx context.Context, org uuid.UUID, mode string) (map[string]any, bool, error) {
	pub, found, err := s.PublicKey(ctx, org, mode)
	if err != nil || !found {
		return nil, found, err
	}
	id := s.IssuerID(org, mode)
	doc := credential.ControllerDocument(id, pub)
	switch {
	case mode == apikey.ModeTest:
		o, err := s.DB.GetOrganization(ctx, org)
		if err != nil {
			return nil, false, fmt.Errorf("load organization: %w", err)
		}
		credential.MarkTestIssuer(doc, s.IssuerID(org, apikey.ModeLive), credential.TestName(o.Name), testDescription(o.Name))
	case s.Anchoring != nil:
		AddAnchorAccount(doc, id, *s.Anchoring)
	}
	return doc, true, nil
}

// Sign signs a credential document with the key of the organization's issuer of mode; created is fixed by the
// caller (the issue time), so a retried step produces the same bytes.
func (s *Service) Sign(ctx context.Context, org uuid.UUID, mode string, doc any, created time.Time) ([]byte, error) {
	signer, err := s.Signer(ctx, org, mode)
	if err != nil {
		return nil, err
	}
	return signer.Sign(ctx, doc, created)
}

// Signer signs credentials of one issuer with its key, read and unsealed once for many credentials.
type Signer struct {
	key ed25519.PrivateKey
	vm  string // the verification method the proofs name
}

// Signer returns the signer of the organization's issuer of mode, creating its key on first use (see Key).
func (s *Service) Signer(ctx context.Context, org uuid.UUID, mode string) (*Signer, error) {
	key, err := s.Key(ctx, org, mode)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, vm: s.VerificationMethod(org, mode, key.Public().(ed25519.PublicKey))}, nil
}

// Sign signs one credential document; it is safe for concurrent use.
func (g *Signer) Sign(ctx context.Context, doc any, created time.Time) ([]byte, error) {
	out, err := credential.Sign(ctx, doc, g.key, credential.SignOptions{VerificationMethod: g.vm, Created: created})
	if err != nil {
		return nil, fmt.Errorf("sign credential: %w", err)
	}
	return out, nil
}
