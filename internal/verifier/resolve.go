package verifier

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/badged/badged/internal/credential"
)

// NewResolver returns the key resolver for verification: did:key locally, then the trusted controller documents,
// then (unless fetcher is nil) the issuer's HTTPS or did:web controller document fetched with fetcher.
func NewResolver(controllers [][]byte, fetcher Fetcher) (credential.Resolver, error) {
	rs := credential.Resolvers{credential.DIDKeyResolver{}}
	for i, doc := range controllers {
		// A file that gives no key is a mistake the user should hear about, not a silent "key not found" later.
		keys, err := credential.ParseControllerDocument(doc)
		if err == nil && len(keys) == 0 {
			err = errors.New("it lists no Ed25519 assertionMethod key")
		}
		if err != nil {
			return nil, fmt.Errorf("controller document %d: %w", i+1, err)
		}
	}
	if len(controllers) > 0 {
		static, err := credential.NewStaticResolver(controllers...)
		if err != nil {
			return nil, fmt.Errorf("controller document: %w", err)
		}
		rs = append(rs, static)
	}
	if fetcher != nil {
		rs = append(rs, remoteResolver{fetcher: fetcher})
	}
	return rs, nil
}

// remoteResolver fetches controller documents. credential.FetchingResolver does this for https and did:web ids;
// the development server's issuer ids are http://localhost URLs, which it rightly refuses, so those are
// resolved here by the same rule: the document at the controller id, holding the method as an assertion key.
type remoteResolver struct {
	fetcher Fetcher
}

func (r remoteResolver) ResolveKey(ctx context.Context, vm string) (*credential.VerificationKey, error) {
	controller, _, _ := strings.Cut(vm, "#")
	if !isLocalHTTP(controller) {
		return credential.FetchingResolver{Fetcher: controllerFetcher{r.fetcher}}.ResolveKey(ctx, vm)
	}
	body, err := r.fetcher.Fetch(ctx, controller)
	if err != nil {
		return nil, fmt.Errorf("fetch controller document %s: %w", controller, err)
	}
	keys, err := credential.ParseControllerDocument(body)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.ID == vm && k.Controller == controller {
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: %s not in %s", credential.ErrKeyNotFound, vm, controller)
}

// controllerFetcher adapts a Fetcher to credential.ControllerFetcher.
type controllerFetcher struct{ f Fetcher }

func (c controllerFetcher) FetchController(ctx context.Context, url string) ([]byte, error) {
	return c.f.Fetch(ctx, url)
}
