package verifier

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/badged/badged/internal/credential"
)

// NewResolver returns the key resolver for verification: did:key locally, then the trusted controller documents,
// then (unless fetcher is nil) the issuer's controller document fetched with fetcher. A key it cannot have
// (offline and not given, a document it cannot fetch or read, a controller it cannot resolve) is an unavailable
// error, "could not check"; a key that a controller document, given or fetched, does not list is a plain error
// wrapping credential.ErrKeyNotFound, a failure.
func NewResolver(controllers [][]byte, fetcher Fetcher) (credential.Resolver, error) {
	r := keyResolver{given: map[string]bool{}, fetcher: fetcher}
	for i, doc := range controllers {
		// A file that gives no key is a mistake the user should hear about, not a silent "key not found" later.
		keys, err := credential.ParseControllerDocument(doc)
		if err == nil && len(keys) == 0 {
			err = errors.New("it lists no Ed25519 assertionMethod key")
		}
		if err != nil {
			return nil, fmt.Errorf("controller document %d: %w", i+1, err)
		}
		r.given[keys[0].Controller] = true
	}
	if len(controllers) > 0 {
		static, err := credential.NewStaticResolver(controllers...)
		if err != nil {
			return nil, fmt.Errorf("controller document: %w", err)
		}
		r.static = static
	}
	return r, nil
}

// keyResolver implements NewResolver's rules.
type keyResolver struct {
	static  *credential.StaticResolver // the given controller documents; nil when none
	given   map[string]bool            // their ids
	fetcher Fetcher                    // nil: offline
}

func (r keyResolver) ResolveKey(ctx context.Context, vm string) (*credential.VerificationKey, error) {
	controller, _, _ := strings.Cut(vm, "#")
	if strings.HasPrefix(controller, "did:key:") {
		return credential.DIDKeyResolver{}.ResolveKey(ctx, vm) // its errors: a did:key that is not a key
	}
	if r.static != nil {
		if k, err := r.static.ResolveKey(ctx, vm); err == nil {
			return k, nil
		}
	}
	if r.given[controller] {
		return nil, fmt.Errorf("%w: the given controller document %s does not list %s as an assertion key",
			credential.ErrKeyNotFound, controller, vm)
	}
	if r.fetcher == nil {
		return nil, unavailable(fmt.Errorf("offline: the issuer's key is in its controller document %s, which is not "+
			"fetched offline; give it with --controller FILE", controller))
	}
	// The development server's issuer ids are http://localhost URLs, which credential.ControllerURL rightly
	// refuses; they are resolved by the same rule: the document at the controller id.
	docURL := controller
	if !isLocalHTTP(controller) {
		u, err := credential.ControllerURL(controller)
		if err != nil {
			return nil, unavailable(fmt.Errorf("the key's controller %s is neither did:key, https nor did:web: it cannot "+
				"be resolved here; give its controller document with --controller FILE", controller))
		}
		docURL = u
	}
	body, err := r.fetcher.Fetch(ctx, docURL)
	if err != nil {
		return nil, unavailable(fmt.Errorf("fetch controller document %s: %w", docURL, err))
	}
	keys, err := credential.ParseControllerDocument(body)
	if err != nil {
		return nil, unavailable(fmt.Errorf("%s answered no controller document: %w", docURL, err))
	}
	for _, k := range keys {
		if k.ID == vm && k.Controller == controller {
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: %s not in %s", credential.ErrKeyNotFound, vm, docURL)
}
