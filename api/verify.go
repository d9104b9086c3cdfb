package api

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

// runChecks checks the signature, the anchor, the status and the expiry of an issued assertion, as a verifier
// would, and returns the checks in the order the page lists them.
func (h *handler) runChecks(ctx context.Context, a db.Assertion) []check {
	cred, sig := h.checkSignature(ctx, a)
	now := h.now()
	exp := check{Name: "check.expiry", OK: a.ExpiredAt == nil || a.ExpiredAt.After(now), Detail: "expiry.never"}
	if a.ExpiredAt != nil {
		exp.Detail, exp.Args = "expiry.until", []any{*a.ExpiredAt}
		if !exp.OK {
			exp.Detail = "expiry.past"
		}
	}
	return []check{sig, h.checkStatus(ctx, a), exp, h.checkAnchor(ctx, a, cred)}
}

func (h *handler) checkSignature(ctx context.Context, a db.Assertion) ([]byte, check) {
	c := check{Name: "check.signature"}
	rc, _, err := h.blob.Get(ctx, *a.CredentialKey)
	if err != nil {
		c.Detail = "sig.unreadable"
		return nil, c
	}
	defer rc.Close()
	cred, err := io.ReadAll(io.LimitReader(rc, 2<<20))
	if err != nil {
		c.Detail = "sig.unreadable"
		return nil, c
	}
	doc, found, err := h.issuer.ControllerDocument(ctx, a.OrgID)
	if err != nil || !found {
		c.Detail = "sig.noKey"
		return cred, c
	}
	docJSON, _ := json.Marshal(doc)
	resolver, err := credential.NewStaticResolver(docJSON)
	if err == nil {
		_, err = credential.Verify(ctx, cred, resolver)
	}
	if err != nil {
		c.Detail, c.Args = "sig.bad", []any{err.Error()}
		return cred, c
	}
	c.OK, c.Detail, c.Args = true, "sig.ok", []any{h.issuer.IssuerID(a.OrgID)}
	return cred, c
}

func (h *handler) checkAnchor(ctx context.Context, a db.Assertion, cred []byte) check {
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

func (h *handler) checkStatus(ctx context.Context, a db.Assertion) check {
	c := check{Name: "check.status"}
	revoked := a.State == "REVOKED" || a.State == "REISSUED" // a reissue sets the original's status bit
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
