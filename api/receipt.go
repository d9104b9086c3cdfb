package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/issuancelog"
)

// ReceiptFinalityDepth is how many blocks must follow an anchor's block (its own included) before its receipt is
// served as final (cached for a year). Before that a node reset or reorg could still move the transaction, and the
// recorded block would follow it, so the receipt is revalidated on each use.
const ReceiptFinalityDepth = 12

// headBlocker tells the chain's latest block; *chain.Verifier satisfies it.
type headBlocker interface {
	HeadBlock(ctx context.Context) (uint64, error)
}

// getReceipt answers the public anchor receipt of a credential (internal/chain/receipt.go has the format): 404
// with the contract's error body while the credential is unknown, not issued, or not yet anchored.
func (h *handler) getReceipt(w http.ResponseWriter, r *http.Request) error {
	id, err := parseUUID(chi.URLParam(r, "assertionId"))
	if err != nil {
		return newError(codeNotFound, "no such credential")
	}
	rec, found, err := h.issuer.Receipt(r.Context(), id)
	if err == nil && !found {
		err = newError(codeNotFound, "no anchored credential with id %s (a receipt exists once the credential is issued and its anchor transaction is mined)", id)
	}
	if err != nil {
		return err
	}
	logged, err := h.receiptLog(r.Context(), id)
	if err != nil {
		return err
	}
	body, err := json.Marshal(receiptWithLog{Receipt: rec, Log: logged})
	if err != nil {
		return err
	}
	body = append(body, '\n')
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if h.receiptFinal(r.Context(), rec.Chain.BlockNumber) {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && bytes.Contains([]byte(match), []byte(etag)) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "application/json")
	if _, err := w.Write(body); err != nil {
		h.log.WarnContext(r.Context(), "write receipt", "err", err)
	}
	return nil
}

// receiptFinal reports whether block is ReceiptFinalityDepth deep on the chain; without a chain connection (or
// when the node does not answer within a second) nothing is final.
func (h *handler) receiptFinal(ctx context.Context, block uint64) bool {
	hb, ok := h.chain.(headBlocker)
	if !ok || h.chain == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	head, err := hb.HeadBlock(ctx)
	return err == nil && head+1 >= block+ReceiptFinalityDepth
}

// receiptWithLog is the public receipt: the anchor receipt (internal/chain) and, once the credential is in its
// issuer's issuance log, its place there (internal/issuancelog); log is null for a credential issued before the log
// and not yet backfilled, and for a wallet copy.
type receiptWithLog struct {
	chain.Receipt
	Log *issuancelog.ReceiptLog `json:"log"`
}

// receiptLog proves an issued credential's entry in its organization's log against its batch's checkpoint; the
// anchor proof of the checkpoint's root is given when that checkpoint rode in the credential's own anchor.
func (h *handler) receiptLog(ctx context.Context, id uuid.UUID) (*issuancelog.ReceiptLog, error) {
	a, err := h.db.GetPublicAssertion(ctx, id)
	if db.IsNotFound(err) {
		return nil, nil // a wallet copy's id
	}
	if err != nil {
		return nil, err
	}
	as := a.Assertion
	in, found, err := issuancelog.Prove(ctx, h.db.Queries, as.OrgID, h.issuer.CredentialID(id))
	if err != nil || !found {
		return nil, err
	}
	anchored := in.AnchorKey != nil && as.AnchorKey != nil && *in.AnchorKey == *as.AnchorKey
	rl, err := issuancelog.NewReceiptLog(issuancelog.Origin(h.issuer.BaseURL, as.OrgID), in, anchored)
	if err != nil {
		return nil, err
	}
	return &rl, nil
}
