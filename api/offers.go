package api

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/wallet"
)

// The wallet offers of the keyed API (a v3 extension): creating and withdrawing them are operations of the
// contract (a manager key in its own mode, the envelope, the contract's codes, the OpenAPI document), so they are
// here; what an offer is and how wallets use it is package wallet's.

// credentialOffer is data of POST /assertions/{id}/credential-offers.
type credentialOffer struct {
	ID                 uuid.UUID `json:"id"`
	Offer              string    `json:"offer"`
	CredentialOfferURI string    `json:"credentialOfferUri"`
	ExpiresAt          string    `json:"expiresAt"`
	TxCode             *string   `json:"txCode"`
	// The same offer as a VC-API exchange, and the link that opens the DCC Learner Credential Wallet on it;
	// lcwRequest is null when the offer asks for a tx_code, which that wallet cannot enter.
	ExchangeURL string  `json:"exchangeUrl"`
	LCWRequest  *string `json:"lcwRequest"`
}

// createCredentialOffer: POST /public/v3/assertions/{assertionId}/credential-offers. Body optional:
// {"txCode": true} asks for a second factor, shown only in this answer, that the wallet's user types in.
func (h *handler) createCredentialOffer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "assertionId")
	if err != nil {
		return err
	}
	body, err := readBody(w, r, 1<<10)
	if err != nil {
		return err
	}
	wantTx := false
	if len(bytes.TrimSpace(body)) > 0 {
		o, err := h.parseBody(r, body)
		if err != nil {
			return err
		}
		o.only("txCode")
		t := o.boolean("txCode")
		if err := o.err(); err != nil {
			return err
		}
		wantTx = t.Set && t.Val
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	a, err := h.findAssertion(r.Context(), sc, id.UUID)
	if err != nil {
		return err
	}
	if !wallet.Offerable(a.Assertion.State, a.Assertion.ExpiredAt, a.Assertion.CredentialKey, time.Now()) {
		return newError(codeOfferState, "assertion %s is %s; only an ISSUED or RECEIVED assertion whose credential is signed can be offered to a wallet",
			id, effectiveState(a.Assertion.State, a.Assertion.ExpiredAt, time.Now()))
	}
	o, err := h.wallet.CreateOffer(r.Context(), wallet.NewOffer{AssertionID: a.Assertion.ID, OrgID: sc.Org, Mode: sc.Mode, TxCode: wantTx})
	if err != nil {
		return err
	}
	writeJSON(w, h.log, http.StatusCreated, envelope{Success: true, Data: credentialOffer{ID: o.ID, Offer: o.Link,
		CredentialOfferURI: o.URI, ExpiresAt: o.ExpiresAt.UTC().Format(time.RFC3339), TxCode: o.TxCode,
		ExchangeURL: o.ExchangeURL, LCWRequest: o.LCWRequest}})
	return nil
}

// withdrawCredentialOffer: DELETE /public/v3/assertions/{assertionId}/credential-offers/{offerId}. The offer URI,
// its codes and its access tokens stop working; copies already issued stay (cancel the assertion to revoke them).
func (h *handler) withdrawCredentialOffer(w http.ResponseWriter, r *http.Request) error {
	id, offer, sc, err := scopedPair(r, "assertionId", "offerId")
	if err != nil {
		return err
	}
	_, err = h.db.WithdrawCredentialOffer(r.Context(), db.WithdrawCredentialOfferParams{ID: offer.UUID, AssertionID: id.UUID, OrgID: sc.Org, Mode: sc.Mode})
	if db.IsNotFound(err) {
		return newError(codeOfferMissing, "credential offer %s of assertion %s not found", offer, id)
	}
	if err != nil {
		return err
	}
	h.ok(w, map[string]any{"id": offer.String(), "deleted": true})
	return nil
}

// walletCopy is one wallet copy as the v3 assertion resource lists it.
type walletCopy struct {
	ID              string  `json:"id"`
	Format          string  `json:"format"`
	Protocol        string  `json:"protocol"` // oid4vci or vcapi
	ConfigurationID string  `json:"configurationId"`
	HolderDID       string  `json:"holderDid"`
	ClaimedAt       string  `json:"claimedAt"`
	WalletEvent     *string `json:"walletEvent"`
}

// walletCopies lists the copies of an assertion; [] when there are none (v3 always names the field).
func (h *handler) walletCopies(ctx context.Context, assertion uuid.UUID) ([]walletCopy, error) {
	rows, err := h.db.ListWalletCredentials(ctx, assertion)
	if err != nil {
		return nil, err
	}
	out := make([]walletCopy, 0, len(rows))
	for _, c := range rows {
		out = append(out, walletCopy{ID: oid4vci.CopyID(c.ID), Format: c.Format, Protocol: c.Protocol, ConfigurationID: c.ConfigurationID,
			HolderDID: c.HolderDid, ClaimedAt: c.CreatedAt.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z"), WalletEvent: c.NotificationEvent})
	}
	return out, nil
}
