package page

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
)

// How long a kept proof check is served, and how many are kept. A check that passed stands for
// proofOKTTL: nothing that decides it can change without changing its key, so the bound only limits how long a
// store or chain gone wrong behind the service's back goes unseen. A failed one stands for proofFailedTTL: a blob
// store or chain node that did not answer, or an anchor not yet confirmed, is worth asking again soon.
const (
	proofOKTTL      = 10 * time.Minute
	proofFailedTTL  = 30 * time.Second
	maxCachedProofs = 10_000
)

// proofChecks are the checks of an assessment that only the stored credential's bytes, the issuer's controller
// document and the recorded anchor decide: the signature (with the facts of the verified credential) and the
// anchor. They are what makes a page view cost milliseconds (canonicalizing and verifying the proof, asking the
// chain), and every request of the page, its counted share links, its certificate and its preview needs them.
type proofChecks struct {
	sig, anchor check
	signed      *credential.Facts
}

// proofKey is everything that decides the proof checks of an assertion: its stored credential (where it is kept,
// and the digest the sign step recorded beside it, which the anchor commits to), the issuer's controller document
// as it is now (a key rotated or removed is another key) and the recorded anchor (its transaction and inclusion
// proof).
type proofKey struct {
	assertion   uuid.UUID
	stored      string
	credential  [32]byte
	document    [32]byte
	anchorTx    string
	anchorProof [32]byte
}

type cachedProof struct {
	checks  proofChecks
	expires time.Time
}

// proofCache keeps proof checks by their key. It never holds a status or an expiry: those are decided on every
// request (assess), so a revocation or an expiry shows at once wherever the badge is shown.
type proofCache struct {
	mu      sync.Mutex
	entries map[proofKey]cachedProof
}

func (c *proofCache) get(k proofKey, now time.Time) (proofChecks, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || !now.Before(e.expires) {
		return proofChecks{}, false
	}
	return e.checks, true
}

func (c *proofCache) put(k proofKey, p proofChecks, now time.Time) {
	ttl := proofOKTTL
	if !p.sig.OK || !p.anchor.OK {
		ttl = proofFailedTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[proofKey]cachedProof{}
	}
	if len(c.entries) >= maxCachedProofs {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxCachedProofs {
			clear(c.entries)
		}
	}
	c.entries[k] = cachedProof{checks: p, expires: now.Add(ttl)}
}

// proofChecks are the signature and anchor checks of a, kept under their proofKey. Only the controller document is
// read on every call (one query): a hit neither reads the stored credential nor verifies it nor asks the chain. An
// assertion whose row has no credential digest is checked in full every time; so is one whose stored bytes are not
// the bytes that digest names (they are then checked, and shown, as they are).
func (h *Handler) proofChecks(ctx context.Context, a db.Assertion) proofChecks {
	doc, found, err := h.issuer.ControllerDocument(ctx, a.OrgID, a.Mode)
	var docJSON []byte
	if err == nil && found {
		docJSON, _ = json.Marshal(doc)
	}
	k, keyed := proofKeyOf(a, docJSON)
	if keyed {
		if p, ok := h.proofs.get(k, time.Now()); ok { // wall time: h.now decides expiries, and tests move it
			return p
		}
	}
	cred, err := h.readCredential(ctx, a)
	if err != nil {
		cred = nil
	}
	var p proofChecks
	p.sig, p.signed = h.checkSignature(ctx, a, cred, docJSON)
	p.anchor = h.checkAnchor(ctx, a, cred)
	if keyed && cred != nil && sha256.Sum256(cred) == k.credential {
		h.proofs.put(k, p, time.Now())
	}
	return p
}

// proofKeyOf is the key of a's proof checks with the controller document docJSON; false when there is none to
// key them by (no recorded digest of the credential, or no document).
func proofKeyOf(a db.Assertion, docJSON []byte) (proofKey, bool) {
	if len(a.CredentialSha256) != sha256.Size || docJSON == nil {
		return proofKey{}, false
	}
	k := proofKey{assertion: a.ID, stored: *a.CredentialKey, document: sha256.Sum256(docJSON), anchorProof: sha256.Sum256(a.AnchorProof)}
	copy(k.credential[:], a.CredentialSha256)
	if a.AnchorTxHash != nil {
		k.anchorTx = *a.AnchorTxHash
	}
	return k, true
}
