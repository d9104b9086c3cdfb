package credential

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrKeyNotFound reports a verification method that a resolver does not know or that is not an assertion method.
var ErrKeyNotFound = errors.New("verification method not found")

// VerificationKey is a resolved Ed25519 verification method.
type VerificationKey struct {
	ID         string // the verification method id
	Controller string // the controller document id (the issuer); empty when unknown
	PublicKey  ed25519.PublicKey
	// TestIssuerOf is set when the controller document marks a test issuer: the live issuer it stands beside
	// (testissuer.go).
	TestIssuerOf string
}

// Resolver maps a verificationMethod URL to the Ed25519 key it names.
type Resolver interface {
	// ResolveKey returns the key for a verification method allowed to make assertions. It returns an error
	// wrapping ErrKeyNotFound when the method is unknown, or the fetch error of a remote resolver.
	ResolveKey(ctx context.Context, verificationMethod string) (*VerificationKey, error)
}

// Resolvers tries each resolver in turn and returns the first key found.
type Resolvers []Resolver

// ResolveKey implements Resolver.
func (rs Resolvers) ResolveKey(ctx context.Context, vm string) (*VerificationKey, error) {
	var errs []error
	for _, r := range rs {
		k, err := r.ResolveKey(ctx, vm)
		if err == nil {
			return k, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrKeyNotFound, vm)
	}
	return nil, errors.Join(errs...)
}

// DIDKeyResolver resolves did:key Ed25519 identifiers locally (did:key:z6Mk...#z6Mk...).
type DIDKeyResolver struct{}

// ResolveKey implements Resolver.
func (DIDKeyResolver) ResolveKey(_ context.Context, vm string) (*VerificationKey, error) {
	did, frag, _ := strings.Cut(vm, "#")
	mb, ok := strings.CutPrefix(did, "did:key:")
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a did:key", ErrKeyNotFound, vm)
	}
	if frag != "" && frag != mb {
		return nil, fmt.Errorf("%w: %s: fragment is not the key", ErrKeyNotFound, vm)
	}
	pub, err := DecodeMultikey(mb)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrKeyNotFound, vm, err)
	}
	return &VerificationKey{ID: vm, Controller: did, PublicKey: pub}, nil
}

// StaticResolver resolves verification methods from controller documents it was given (an issuer's own HTTPS
// or did:web document, or a trusted copy of another issuer's).
type StaticResolver struct {
	keys map[string]*VerificationKey
}

// NewStaticResolver returns a resolver over the given controller documents (JSON).
func NewStaticResolver(controllerDocs ...[]byte) (*StaticResolver, error) {
	r := &StaticResolver{keys: map[string]*VerificationKey{}}
	for _, d := range controllerDocs {
		if err := r.Add(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add reads one controller document and registers its assertion-method keys.
func (r *StaticResolver) Add(controllerDoc []byte) error {
	keys, err := ParseControllerDocument(controllerDoc)
	if err != nil {
		return err
	}
	for _, k := range keys {
		r.keys[k.ID] = k
	}
	return nil
}

// ResolveKey implements Resolver.
func (r *StaticResolver) ResolveKey(_ context.Context, vm string) (*VerificationKey, error) {
	if k, ok := r.keys[vm]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrKeyNotFound, vm)
}

// ControllerFetcher fetches a controller document; the lead plugs in an HTTP client with timeouts, size limits
// and an allow-list (this package never touches the network itself).
type ControllerFetcher interface {
	// FetchController returns the JSON body at url, or an error.
	FetchController(ctx context.Context, url string) ([]byte, error)
}

// FetchingResolver resolves HTTPS and did:web verification methods by fetching the controller document.
type FetchingResolver struct {
	Fetcher ControllerFetcher
}

// ResolveKey implements Resolver. The fetched document's id must be the controller the method names.
func (r FetchingResolver) ResolveKey(ctx context.Context, vm string) (*VerificationKey, error) {
	controller, _, _ := strings.Cut(vm, "#")
	docURL, err := ControllerURL(controller)
	if err != nil {
		return nil, err
	}
	body, err := r.Fetcher.FetchController(ctx, docURL)
	if err != nil {
		return nil, fmt.Errorf("fetch controller document %s: %w", docURL, err)
	}
	keys, err := ParseControllerDocument(body)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.ID == vm && k.Controller == controller {
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: %s not in %s", ErrKeyNotFound, vm, docURL)
}

// ControllerURL returns where the controller document of an HTTPS or did:web controller id is served:
// the URL itself, or https://host/path/did.json (https://host/.well-known/did.json for a bare domain).
func ControllerURL(controller string) (string, error) {
	if rest, ok := strings.CutPrefix(controller, "did:web:"); ok {
		parts := strings.Split(rest, ":")
		host, err := url.PathUnescape(parts[0])
		if err != nil || host == "" {
			return "", fmt.Errorf("%w: bad did:web %s", ErrKeyNotFound, controller)
		}
		if len(parts) == 1 {
			return "https://" + host + "/.well-known/did.json", nil
		}
		return "https://" + host + "/" + strings.Join(parts[1:], "/") + "/did.json", nil
	}
	u, err := url.Parse(controller)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%w: controller %s is neither https nor did:web", ErrKeyNotFound, controller)
	}
	return controller, nil
}

// ParseControllerDocument returns the Ed25519 keys (Multikey or Ed25519VerificationKey2020 with
// publicKeyMultibase) that a controller document lists under assertionMethod.
func ParseControllerDocument(doc []byte) ([]*VerificationKey, error) {
	var d struct {
		ID                 string            `json:"id"`
		VerificationMethod []json.RawMessage `json:"verificationMethod"`
		AssertionMethod    []json.RawMessage `json:"assertionMethod"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("parse controller document: %w", err)
	}
	if d.ID == "" {
		return nil, errors.New("controller document has no id")
	}
	type method struct {
		ID                 string `json:"id"`
		Type               string `json:"type"`
		Controller         string `json:"controller"`
		PublicKeyMultibase string `json:"publicKeyMultibase"`
	}
	abs := func(id string) string {
		if strings.HasPrefix(id, "#") {
			return d.ID + id
		}
		return id
	}
	methods := map[string]method{}
	for _, raw := range d.VerificationMethod {
		var m method
		if err := json.Unmarshal(raw, &m); err == nil && m.ID != "" {
			methods[abs(m.ID)] = m
		}
	}
	var keys []*VerificationKey
	testOf := TestIssuerOf(doc)
	for _, raw := range d.AssertionMethod {
		var m method
		var ref string
		if json.Unmarshal(raw, &ref) == nil {
			var ok bool
			if m, ok = methods[abs(ref)]; !ok {
				continue
			}
		} else if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if m.Type != "Multikey" && m.Type != "Ed25519VerificationKey2020" {
			continue
		}
		pub, err := DecodeMultikey(m.PublicKeyMultibase)
		if err != nil {
			return nil, fmt.Errorf("controller document %s: key %s: %w", d.ID, m.ID, err)
		}
		ctrl := m.Controller
		if ctrl == "" {
			ctrl = d.ID
		}
		if ctrl != d.ID {
			continue // a key of another controller cannot speak for this one
		}
		keys = append(keys, &VerificationKey{ID: abs(m.ID), Controller: ctrl, PublicKey: pub, TestIssuerOf: testOf})
	}
	return keys, nil
}
