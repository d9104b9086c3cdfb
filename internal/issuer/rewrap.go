package issuer

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
)

// RewrapResult counts what a keyring rewrap did, by key kind ("ed25519", "rsa").
type RewrapResult struct {
	Rewrapped map[string]int `json:"rewrapped"` // re-sealed with the primary key
	Current   map[string]int `json:"current"`   // already sealed with it
	Raced     map[string]int `json:"raced"`     // changed while this run re-sealed it: left for the next run
}

// RewrapKeys re-seals every stored issuer key, the organizations' Ed25519 keys and their RS256 keys alike, that is
// sealed with another keyring entry than the primary one. It is the second half of a rotation of ISSUER_KEY_RING
// (prepend the new entry, rewrap, then drop the old entry): a key still sealed under a dropped entry could not be
// opened. Every key is re-sealed in memory before any is written, and the writes share one transaction: a key that
// does not open with the ring (the ring lacks its entry) is an error and nothing is written. Each key is swapped
// only if it is still the value read (compare and swap), so running it twice, or while the service runs, is safe.
func (s *Service) RewrapKeys(ctx context.Context) (RewrapResult, error) {
	res := RewrapResult{Rewrapped: map[string]int{}, Current: map[string]int{}, Raced: map[string]int{}}
	if s.Keyring == nil {
		return res, fmt.Errorf("rewrap: no keyring configured")
	}
	keys, err := s.DB.ListSealedIssuerKeys(ctx)
	if err != nil {
		return res, fmt.Errorf("rewrap: list keys: %w", err)
	}
	type rewrap struct {
		key    db.ListSealedIssuerKeysRow
		sealed []byte
	}
	var todo []rewrap
	for _, k := range keys {
		old := []byte(k.SealedKey)
		if !s.Keyring.NeedsRewrap(old) {
			res.Current[k.Kind]++
			continue
		}
		var sealed []byte
		switch k.Kind {
		case "ed25519":
			sealed, err = credential.RewrapIssuerKey(s.Keyring, old)
		case "rsa":
			sealed, err = s.rewrapRSA(old)
		default:
			err = fmt.Errorf("unknown key kind %q", k.Kind)
		}
		if err != nil {
			return RewrapResult{}, fmt.Errorf("rewrap %s key of organization %s (%s): %w (nothing was rewrapped)", k.Kind, k.OrgID, k.Mode, err)
		}
		todo = append(todo, rewrap{k, sealed})
	}
	err = s.DB.InTx(ctx, func(q *db.Queries) error {
		for _, r := range todo {
			k := r.key
			var n int64
			var err error
			if k.Kind == "ed25519" {
				n, err = q.RewrapIssuerKey(ctx, db.RewrapIssuerKeyParams{NewSealed: string(r.sealed), OrgID: k.OrgID, Mode: k.Mode, OldSealed: k.SealedKey})
			} else {
				n, err = q.RewrapIssuerRSAKey(ctx, db.RewrapIssuerRSAKeyParams{NewSealed: string(r.sealed), OrgID: k.OrgID, Mode: k.Mode, OldSealed: k.SealedKey})
			}
			if err != nil {
				return fmt.Errorf("rewrap %s key of organization %s (%s): %w", k.Kind, k.OrgID, k.Mode, err)
			}
			if n == 0 {
				res.Raced[k.Kind]++
			} else {
				res.Rewrapped[k.Kind]++
			}
		}
		return nil
	})
	if err != nil {
		return RewrapResult{}, err
	}
	return res, nil
}

// rewrapRSA re-seals a sealed RS256 key (PKCS#8 DER) with the ring's primary entry, under the same AAD.
func (s *Service) rewrapRSA(sealed []byte) ([]byte, error) {
	der, err := s.Keyring.Open(sealed, rsaKeyAAD)
	if err != nil {
		return nil, err
	}
	return s.Keyring.Seal(der, rsaKeyAAD)
}
