package credential

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mr-tron/base58"

	"github.com/badged/badged/internal/errcode"
)

// multicodec prefix of an Ed25519 public key (0xed as an unsigned varint).
var ed25519PubPrefix = []byte{0xed, 0x01}

// EncodeMultikey returns the Multikey publicKeyMultibase of an Ed25519 public key ("z6Mk...").
func EncodeMultikey(pub ed25519.PublicKey) string {
	return string(multibaseBase58) + base58.Encode(append(append([]byte{}, ed25519PubPrefix...), pub...))
}

// DecodeMultikey parses a Multikey publicKeyMultibase holding an Ed25519 public key.
func DecodeMultikey(s string) (ed25519.PublicKey, error) {
	if len(s) < 2 || s[0] != multibaseBase58 {
		return nil, errors.New("multikey: not multibase base58btc")
	}
	b, err := base58.Decode(s[1:])
	if err != nil {
		return nil, fmt.Errorf("multikey: %w", err)
	}
	if len(b) != len(ed25519PubPrefix)+ed25519.PublicKeySize || !bytes.HasPrefix(b, ed25519PubPrefix) {
		return nil, errors.New("multikey: not an Ed25519 public key")
	}
	return ed25519.PublicKey(b[len(ed25519PubPrefix):]), nil
}

// VerificationMethodID returns the id of the issuer's Multikey: the issuer id, '#', the publicKeyMultibase.
func VerificationMethodID(issuerID string, pub ed25519.PublicKey) string {
	return issuerID + "#" + EncodeMultikey(pub)
}

// ControllerDocument returns the controller document the service serves at issuerID (an HTTPS URL, or the
// did:web document): one Multikey, allowed for assertions. Verifiers resolve the proof's verificationMethod here.
func ControllerDocument(issuerID string, pub ed25519.PublicKey) map[string]any {
	vm := VerificationMethodID(issuerID, pub)
	return map[string]any{
		"@context": []any{ContextDIDV1, ContextMultikeyV1},
		"id":       issuerID,
		"verificationMethod": []any{map[string]any{
			"id":                 vm,
			"type":               "Multikey",
			"controller":         issuerID,
			"publicKeyMultibase": EncodeMultikey(pub),
		}},
		"assertionMethod": []any{vm},
	}
}

// Keyring holds the AES-256-GCM keys that seal issuer private keys at rest. The first key seals; every key
// opens, so a key is rotated by putting a new one first and keeping the old ones until every sealed key has
// been rewrapped (see NeedsRewrap).
type Keyring struct {
	primary string
	aeads   map[string]cipher.AEAD
}

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// NewKeyring parses "id:base64key,id:base64key" (first = sealing key). Each key is 32 bytes in standard or
// URL base64, padded or not.
func NewKeyring(spec string) (*Keyring, error) {
	kr := &Keyring{aeads: map[string]cipher.AEAD{}}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		id, b64, ok := strings.Cut(item, ":")
		if !ok || !keyIDPattern.MatchString(id) {
			return nil, fmt.Errorf("keyring: entry %q: want id:base64key with id of [A-Za-z0-9_-]", redact(item))
		}
		if _, dup := kr.aeads[id]; dup {
			return nil, fmt.Errorf("keyring: key id %q appears twice", id)
		}
		raw, err := decodeBase64Any(b64)
		if err != nil || len(raw) != 32 {
			return nil, fmt.Errorf("keyring: key %q: want 32 bytes of base64", id)
		}
		block, err := aes.NewCipher(raw)
		if err != nil {
			return nil, fmt.Errorf("keyring: key %q: %w", id, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("keyring: key %q: %w", id, err)
		}
		kr.aeads[id] = aead
		if kr.primary == "" {
			kr.primary = id
		}
	}
	if kr.primary == "" {
		return nil, errors.New("keyring: no key configured")
	}
	return kr, nil
}

// PrimaryID returns the id of the key that seals.
func (kr *Keyring) PrimaryID() string { return kr.primary }

func redact(item string) string {
	id, _, _ := strings.Cut(item, ":")
	return id + ":…"
}

func decodeBase64Any(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// sealedPrefix starts every sealed value: "v1.<key id>.<base64url(nonce || ciphertext)>".
const sealedPrefix = "v1."

// Seal encrypts plaintext with the primary key; aad binds it to its purpose. The result names the key id.
func (kr *Keyring) Seal(plaintext, aad []byte) ([]byte, error) {
	aead := kr.aeads[kr.primary]
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: nonce: %w", err)
	}
	ct := aead.Seal(nonce, nonce, plaintext, sealAAD(kr.primary, aad))
	return []byte(sealedPrefix + kr.primary + "." + base64.RawURLEncoding.EncodeToString(ct)), nil
}

// Open decrypts a value made by Seal with any key of the ring.
func (kr *Keyring) Open(sealed, aad []byte) ([]byte, error) {
	id, ct, err := splitSealed(sealed)
	if err != nil {
		return nil, err
	}
	aead, ok := kr.aeads[id]
	if !ok {
		return nil, fmt.Errorf("open: key %q is not in the keyring", id)
	}
	if len(ct) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("open: sealed value too short")
	}
	pt, err := aead.Open(nil, ct[:aead.NonceSize()], ct[aead.NonceSize():], sealAAD(id, aad))
	if err != nil {
		return nil, fmt.Errorf("open with key %q: %w", id, err)
	}
	return pt, nil
}

// NeedsRewrap reports whether a sealed value was sealed with a key other than the primary one.
func (kr *Keyring) NeedsRewrap(sealed []byte) bool {
	id, _, err := splitSealed(sealed)
	return err == nil && id != kr.primary
}

func splitSealed(sealed []byte) (string, []byte, error) {
	rest, ok := strings.CutPrefix(string(sealed), sealedPrefix)
	if !ok {
		return "", nil, errors.New("open: not a v1 sealed value")
	}
	id, b64, ok := strings.Cut(rest, ".")
	if !ok {
		return "", nil, errors.New("open: sealed value has no key id")
	}
	ct, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return "", nil, fmt.Errorf("open: %w", err)
	}
	return id, ct, nil
}

func sealAAD(id string, aad []byte) []byte {
	return append([]byte("badged/seal/v1/"+id+"/"), aad...)
}

// issuerKeyAAD binds sealed values to their use as issuer signing keys.
var issuerKeyAAD = []byte("issuer-ed25519-seed")

// GenerateIssuerKey creates an organization's Ed25519 key and returns the public key and the private key sealed
// with the ring's primary key. Failures carry ISSUER_KEY_GENERATION_FAILED.
func GenerateIssuerKey(ring *Keyring) (ed25519.PublicKey, []byte, error) {
	if ring == nil {
		return nil, nil, errcode.New(errcode.IssuerKeyGenerationFailed, "no keyring configured")
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "generate ed25519 key", err)
	}
	sealed, err := ring.Seal(priv.Seed(), issuerKeyAAD)
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.IssuerKeyGenerationFailed, "seal issuer key", err)
	}
	return pub, sealed, nil
}

// OpenIssuerKey unseals an issuer private key. Failures carry CREDENTIAL_SIGNING_FAILED (the key is opened to sign).
func OpenIssuerKey(ring *Keyring, sealed []byte) (ed25519.PrivateKey, error) {
	if ring == nil {
		return nil, errcode.New(errcode.CredentialSigningFailed, "no keyring configured")
	}
	seed, err := ring.Open(sealed, issuerKeyAAD)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialSigningFailed, "open issuer key", err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, errcode.New(errcode.CredentialSigningFailed, "sealed issuer key has the wrong size")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// RewrapIssuerKey re-seals an issuer key with the primary key (after a rotation).
func RewrapIssuerKey(ring *Keyring, sealed []byte) ([]byte, error) {
	seed, err := ring.Open(sealed, issuerKeyAAD)
	if err != nil {
		return nil, err
	}
	return ring.Seal(seed, issuerKeyAAD)
}
