package credential

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Bitstring Status List v1.0 constants.
const (
	// MinStatusListBits is the smallest list the spec allows (16 KB), so that one entry does not identify its holder.
	MinStatusListBits = 131072
	// MaxStatusListBits bounds what DecodeStatusList inflates (a gzip bomb guard): 16 MiB of bits.
	MaxStatusListBits = 8 * 16 << 20
	// StatusPurposeRevocation is the only purpose this service uses.
	StatusPurposeRevocation = "revocation"
	multibaseBase64URL      = 'u'
)

// ErrStatusIndex reports an index outside the list.
var ErrStatusIndex = errors.New("status list index out of range")

// StatusList is a Bitstring Status List: bit 0 is the left-most (most significant) bit of byte 0.
type StatusList struct {
	bits []byte
}

// NewStatusList returns an all-zero list of at least n bits (never fewer than MinStatusListBits, whole bytes).
func NewStatusList(n int) *StatusList {
	n = max(n, MinStatusListBits)
	return &StatusList{bits: make([]byte, (n+7)/8)}
}

// Len returns the number of bits.
func (l *StatusList) Len() int { return len(l.bits) * 8 }

// Set sets bit i to v (true = revoked).
func (l *StatusList) Set(i int, v bool) error {
	if i < 0 || i >= l.Len() {
		return fmt.Errorf("%w: %d of %d", ErrStatusIndex, i, l.Len())
	}
	mask := byte(0x80) >> (i % 8)
	if v {
		l.bits[i/8] |= mask
	} else {
		l.bits[i/8] &^= mask
	}
	return nil
}

// Get returns bit i.
func (l *StatusList) Get(i int) (bool, error) {
	if i < 0 || i >= l.Len() {
		return false, fmt.Errorf("%w: %d of %d", ErrStatusIndex, i, l.Len())
	}
	return l.bits[i/8]&(byte(0x80)>>(i%8)) != 0, nil
}

// Encode returns the encodedList: multibase 'u' + base64url (no padding) of the GZIP-compressed bitstring.
// The gzip header carries no time or name, so equal lists encode equally.
func (l *StatusList) Encode() (string, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", fmt.Errorf("gzip status list: %w", err)
	}
	if _, err := zw.Write(l.bits); err != nil {
		return "", fmt.Errorf("gzip status list: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("gzip status list: %w", err)
	}
	return string(multibaseBase64URL) + base64.RawURLEncoding.EncodeToString(buf.Bytes()), nil
}

// DecodeStatusList parses an encodedList. It refuses lists that inflate past MaxStatusListBits.
func DecodeStatusList(encoded string) (*StatusList, error) {
	if len(encoded) < 2 || encoded[0] != multibaseBase64URL {
		return nil, errors.New("status list: encodedList is not multibase base64url ('u')")
	}
	raw, err := base64.RawURLEncoding.DecodeString(encoded[1:])
	if err != nil {
		return nil, fmt.Errorf("status list: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("status list: gunzip: %w", err)
	}
	bits, err := io.ReadAll(io.LimitReader(zr, MaxStatusListBits/8+1))
	if err != nil {
		return nil, fmt.Errorf("status list: gunzip: %w", err)
	}
	if len(bits)*8 > MaxStatusListBits {
		return nil, errors.New("status list: larger than MaxStatusListBits")
	}
	if len(bits)*8 < MinStatusListBits {
		return nil, fmt.Errorf("status list: %d bits, fewer than %d", len(bits)*8, MinStatusListBits)
	}
	return &StatusList{bits: bits}, nil
}

// BuildStatusListCredential returns an unsigned BitstringStatusListCredential for revocation; sign it with Sign
// like a badge and serve it at id.
func BuildStatusListCredential(id, issuer, encodedList string, validFrom time.Time) map[string]any {
	return map[string]any{
		"@context":  []any{ContextCredentialsV2},
		"id":        id,
		"type":      []any{"VerifiableCredential", "BitstringStatusListCredential"},
		"issuer":    issuer,
		"validFrom": formatTime(validFrom),
		"credentialSubject": map[string]any{
			"id":            id + "#list",
			"type":          "BitstringStatusList",
			"statusPurpose": StatusPurposeRevocation,
			"encodedList":   encodedList,
		},
	}
}

// CheckStatus reports whether a credential's revocation bit is set in a status list credential (both as maps
// or JSON bytes). It checks that the entry points at that list; the caller verifies the list's proof (Verify)
// and that its issuer is the credential's. A credential without a revocation entry is not revoked.
func CheckStatus(cred, listCred any) (revoked bool, err error) {
	c, err := toMap(cred)
	if err != nil {
		return false, fmt.Errorf("check status: credential: %w", err)
	}
	lc, err := toMap(listCred)
	if err != nil {
		return false, fmt.Errorf("check status: list credential: %w", err)
	}
	var entry map[string]any
	for _, e := range asList(c["credentialStatus"]) {
		m, ok := e.(map[string]any)
		if ok && m["type"] == "BitstringStatusListEntry" && m["statusPurpose"] == StatusPurposeRevocation {
			entry = m
			break
		}
	}
	if entry == nil {
		return false, nil
	}
	if entry["statusListCredential"] != lc["id"] {
		return false, fmt.Errorf("check status: entry points at %v, list is %v", entry["statusListCredential"], lc["id"])
	}
	if issuerID(c["issuer"]) != issuerID(lc["issuer"]) {
		return false, fmt.Errorf("check status: list issuer %q is not the credential issuer %q", issuerID(lc["issuer"]), issuerID(c["issuer"]))
	}
	idxStr, _ := entry["statusListIndex"].(string)
	idx, err := strconv.Atoi(idxStr)
	if err != nil {
		return false, fmt.Errorf("check status: statusListIndex %q: %w", idxStr, err)
	}
	subj, _ := lc["credentialSubject"].(map[string]any)
	if subj == nil || subj["statusPurpose"] != StatusPurposeRevocation {
		return false, errors.New("check status: list credential is not a revocation BitstringStatusList")
	}
	enc, _ := subj["encodedList"].(string)
	list, err := DecodeStatusList(enc)
	if err != nil {
		return false, fmt.Errorf("check status: %w", err)
	}
	return list.Get(idx)
}
