package oid4vci

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"github.com/mr-tron/base58"
)

// Multicodec prefixes (unsigned varints) of the did:key keys accepted: Ed25519 (0xed) and P-256 (0x1200,
// compressed point).
var (
	ed25519Codec = []byte{0xed, 0x01}
	p256Codec    = []byte{0x80, 0x24}
)

// maxDIDLen bounds a holder DID (a did:jwk of a P-256 or Ed25519 key is under 200 characters).
const maxDIDLen = 1024

// ResolveDID returns the public key a did:key or did:jwk names. A DID URL's fragment, when there is one, must name
// the key of the DID itself (did:key:z…#z…, did:jwk:…#0).
func ResolveDID(didURL string) (did string, key any, err error) {
	if len(didURL) > maxDIDLen {
		return "", nil, errors.New("DID too long")
	}
	did, frag, _ := strings.Cut(didURL, "#")
	switch {
	case strings.HasPrefix(did, "did:key:"):
		mb := strings.TrimPrefix(did, "did:key:")
		if frag != "" && frag != mb {
			return "", nil, errors.New("did:key fragment names another key")
		}
		key, err = decodeKeyMultibase(mb)
	case strings.HasPrefix(did, "did:jwk:"):
		if frag != "" && frag != "0" {
			return "", nil, errors.New("did:jwk fragment must be #0")
		}
		raw, derr := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(did, "did:jwk:"))
		if derr != nil {
			return "", nil, fmt.Errorf("did:jwk: %w", derr)
		}
		var jwk jose.JSONWebKey
		if derr := json.Unmarshal(raw, &jwk); derr != nil {
			return "", nil, fmt.Errorf("did:jwk: %w", derr)
		}
		key, err = PublicKeyOf(&jwk)
	default:
		return "", nil, errors.New("only did:key and did:jwk are resolved")
	}
	if err != nil {
		return "", nil, err
	}
	return did, key, nil
}

func decodeKeyMultibase(mb string) (any, error) {
	if len(mb) < 2 || mb[0] != 'z' {
		return nil, errors.New("did:key: not multibase base58btc")
	}
	b, err := base58.Decode(mb[1:])
	if err != nil {
		return nil, fmt.Errorf("did:key: %w", err)
	}
	switch {
	case bytes.HasPrefix(b, ed25519Codec) && len(b) == 2+ed25519.PublicKeySize:
		return ed25519.PublicKey(b[2:]), nil
	case bytes.HasPrefix(b, p256Codec) && len(b) == 2+33:
		x, y := elliptic.UnmarshalCompressed(elliptic.P256(), b[2:])
		if x == nil {
			return nil, errors.New("did:key: invalid P-256 point")
		}
		// 0x04 || X || Y: the uncompressed form ecdsa parses (and checks is on the curve).
		raw := append(append([]byte{4}, x.FillBytes(make([]byte, 32))...), y.FillBytes(make([]byte, 32))...)
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
		if err != nil {
			return nil, fmt.Errorf("did:key: %w", err)
		}
		return pub, nil
	}
	return nil, errors.New("did:key: only Ed25519 and P-256 keys are accepted")
}

// PublicKeyOf checks that a JWK is a public Ed25519 or P-256 key and returns it.
func PublicKeyOf(jwk *jose.JSONWebKey) (any, error) {
	if jwk == nil || !jwk.Valid() {
		return nil, errors.New("invalid JWK")
	}
	if !jwk.IsPublic() {
		return nil, errors.New("the JWK holds a private key")
	}
	switch k := jwk.Key.(type) {
	case ed25519.PublicKey:
		return k, nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, errors.New("only P-256 EC keys are accepted")
		}
		return k, nil
	}
	return nil, errors.New("only Ed25519 and P-256 keys are accepted")
}

// DIDJWK returns the did:jwk of a public key: the holder DID of a proof that names its key as a jwk. The JWK is
// serialized with its required members only, in lexicographic order (RFC 7638's form), so a wallet that derives its
// did:jwk from the same key the same canonical way finds its own DID.
func DIDJWK(key any) (string, error) {
	b, err := json.Marshal(jose.JSONWebKey{Key: key})
	if err != nil {
		return "", err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return "", err
	}
	req := map[string]any{}
	for _, k := range []string{"crv", "kty", "x", "y"} {
		if v, ok := all[k]; ok {
			req[k] = v
		}
	}
	b, err = json.Marshal(req) // encoding/json writes map keys sorted
	if err != nil {
		return "", err
	}
	return "did:jwk:" + base64.RawURLEncoding.EncodeToString(b), nil
}

// DIDKey returns the did:key of an Ed25519 or P-256 public key.
func DIDKey(key any) (string, error) {
	switch k := key.(type) {
	case ed25519.PublicKey:
		return "did:key:z" + base58.Encode(append(append([]byte{}, ed25519Codec...), k...)), nil
	case *ecdsa.PublicKey:
		return "did:key:z" + base58.Encode(append(append([]byte{}, p256Codec...), compressP256(k)...)), nil
	}
	return "", errors.New("only Ed25519 and P-256 keys")
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// compressP256 is the SEC 1 compressed point of k: 0x02 or 0x03 (the parity of Y), then X.
func compressP256(k *ecdsa.PublicKey) []byte {
	raw, err := k.Bytes() // 0x04 || X || Y
	if err != nil || len(raw) != 65 {
		return nil
	}
	return append([]byte{2 | raw[64]&1}, raw[1:33]...)
}
