package page

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
)

// ChainVerifier looks an anchor up on chain, alone or through a Merkle inclusion proof; *chain.Verifier
// satisfies it.
type ChainVerifier interface {
	Verify(ctx context.Context, txHash string, digest [32]byte) (chain.Anchor, error)
	VerifyProof(ctx context.Context, txHash string, digest [32]byte, proof chain.Proof) (chain.Anchor, error)
}

// check is one technical check of the badge page: a message key of its name and of its detail, with the detail's
// arguments (pageMessages).
type check struct {
	Name   string
	OK     bool
	Detail string
	Args   []any
}

// assessment is what a verifier learns of an issued badge: the technical checks in the order the page lists
// them, and the facts of the credential when its signature verified (nil otherwise), which are then the only
// facts the page and the certificate may present as signed.
type assessment struct {
	checks []check
	signed *credential.Facts
}

// failed reports whether the check of that name ran and failed.
func (as assessment) failed(name string) bool {
	for _, c := range as.checks {
		if c.Name == name {
			return !c.OK
		}
	}
	return false
}

// assess checks the signature, the anchor, the status and the expiry of an issued assertion, as a verifier
// would. The expiry is the signed validUntil; the row's expiry stands in only when the signature did not verify
// (the verdict then says so anyway). The status and the expiry are decided on every call, so a revocation or an
// expiry shows at once; the signature and the anchor, which only the stored bytes and the issuer's key decide, are
// checked once and kept (proofs.go).
func (h *Handler) assess(ctx context.Context, a db.Assertion) assessment {
	p := h.proofChecks(ctx, a)
	expiresAt := a.ExpiredAt
	if p.signed != nil {
		expiresAt = nil
		if !p.signed.ValidUntil.IsZero() {
			expiresAt = &p.signed.ValidUntil
		}
	}
	exp := check{Name: "check.expiry", OK: expiresAt == nil || expiresAt.After(h.now()), Detail: "expiry.never"}
	if expiresAt != nil {
		exp.Detail, exp.Args = "expiry.until", []any{dateTime(*expiresAt)}
		if !exp.OK {
			exp.Detail = "expiry.past"
		}
	}
	return assessment{checks: []check{p.sig, h.checkStatus(ctx, a), exp, p.anchor}, signed: p.signed}
}

// readCredential reads the stored credential of a (at most 2 MiB).
func (h *Handler) readCredential(ctx context.Context, a db.Assertion) ([]byte, error) {
	rc, _, err := h.blob.Get(ctx, *a.CredentialKey)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, 2<<20))
}

// checkSignature verifies the proof of cred (nil: it could not be read) with the issuer's controller document
// (docJSON; nil: the issuer has no key, or it could not be read); when it verifies, it also reads the facts the
// credential signs.
func (h *Handler) checkSignature(ctx context.Context, a db.Assertion, cred, docJSON []byte) (check, *credential.Facts) {
	c := check{Name: "check.signature"}
	if cred == nil {
		c.Detail = "sig.unreadable"
		return c, nil
	}
	if docJSON == nil {
		c.Detail = "sig.noKey"
		return c, nil
	}
	resolver, err := credential.NewStaticResolver(docJSON)
	if err == nil {
		_, err = credential.Verify(ctx, cred, resolver)
	}
	if err != nil {
		c.Detail, c.Args = "sig.bad", []any{err.Error()}
		return c, nil
	}
	c.OK, c.Detail, c.Args = true, "sig.ok", []any{h.issuer.IssuerID(a.OrgID, a.Mode)}
	facts, err := credential.ReadFacts(cred)
	if err != nil { // a verified credential without a readable validFrom: nothing of it is shown as signed
		h.log.WarnContext(ctx, "read the facts of a verified credential", "assertionId", a.ID, "err", err)
		return c, nil
	}
	return c, &facts
}

func (h *Handler) checkAnchor(ctx context.Context, a db.Assertion, cred []byte) check {
	c := check{Name: "check.anchor"}
	switch {
	case a.AnchorTxHash == nil:
		c.OK, c.Detail = true, "anchor.none"
	case cred == nil:
		c.Detail = "anchor.noCred"
	case h.chain == nil:
		c.OK, c.Detail, c.Args = true, "anchor.recorded", []any{*a.AnchorTxHash, deref64(a.AnchorBlock), deref64(a.AnchorChainID)}
	case a.AnchorProof != nil:
		var proof chain.Proof
		if err := json.Unmarshal(a.AnchorProof, &proof); err != nil {
			c.Detail = "anchor.badProof"
			return c
		}
		res, err := h.chain.VerifyProof(ctx, *a.AnchorTxHash, sha256.Sum256(cred), proof)
		if err != nil {
			c.Detail, c.Args = "anchor.unconfirmed", []any{*a.AnchorTxHash, err.Error()}
			return c
		}
		c.OK, c.Detail, c.Args = true, "anchor.proofOK", []any{len(proof), res.TxHash, res.BlockNumber, res.ChainID}
	default:
		res, err := h.chain.Verify(ctx, *a.AnchorTxHash, sha256.Sum256(cred))
		if err != nil {
			c.Detail, c.Args = "anchor.unconfirmed", []any{*a.AnchorTxHash, err.Error()}
			return c
		}
		c.OK, c.Detail, c.Args = true, "anchor.ok", []any{res.TxHash, res.BlockNumber, res.ChainID}
	}
	return c
}

func (h *Handler) checkStatus(ctx context.Context, a db.Assertion) check {
	c := check{Name: "check.status"}
	revoked := a.State == string(db.AssertionRevoked) || a.State == string(db.AssertionReissued) // a reissue sets the original's status bit
	if a.StatusListID != nil && a.StatusListIndex != nil {
		l, err := h.db.GetStatusList(ctx, *a.StatusListID)
		if err != nil {
			c.Detail = "status.unreadable"
			return c
		}
		i := int(*a.StatusListIndex)
		revoked = revoked || l.Bits[i/8]&(0x80>>(i%8)) != 0
	}
	if revoked {
		c.Detail = "status.revoked"
		return c
	}
	c.OK, c.Detail = true, "status.ok"
	return c
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
