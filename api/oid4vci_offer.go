package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/oid4vci"
)

// Lifetimes. An offer outlives a week-old mail; each fetch of its URI mints a code that lives minutes.
const (
	preAuthCodeTTL = 10 * time.Minute
	accessTokenTTL = 10 * time.Minute
	nonceTTL       = 5 * time.Minute
	txCodeDigits   = 6
)

// credentialOffer is data of POST /assertions/{id}/credential-offers.
type credentialOffer struct {
	ID                 uuid.UUID `json:"id"`
	Offer              string    `json:"offer"`
	CredentialOfferURI string    `json:"credentialOfferUri"`
	ExpiresAt          string    `json:"expiresAt"`
	TxCode             *string   `json:"txCode"`
	// The same offer as a VC-API exchange, and the link that opens the DCC Learner Credential Wallet on it
	// (vcapi_exchange.go); lcwRequest is null when the offer asks for a tx_code, which that wallet cannot enter.
	ExchangeURL string  `json:"exchangeUrl"`
	LCWRequest  *string `json:"lcwRequest"`
}

// secret returns n random bytes, base64url: codes, tokens and nonces.
func secret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashSecret(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func numericCode(digits int) string {
	n, _ := rand.Int(rand.Reader, big.NewInt(1_000_000))
	return fmt.Sprintf("%0*d", digits, n.Int64())
}

// offerable: only an issued, signed, unexpired credential may go to a wallet.
func offerable(state string, expiredAt *time.Time, credentialKey *string, now time.Time) bool {
	s := effectiveState(state, expiredAt, now)
	return (s == db.AssertionIssued || s == db.AssertionReceived) && credentialKey != nil
}

// offerURI is the https URI a wallet fetches the offer from.
func (h *handler) offerURI(id uuid.UUID) string { return oid4vci.OfferURI(h.baseURL, id) }

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
	if !offerable(a.Assertion.State, a.Assertion.ExpiredAt, a.Assertion.CredentialKey, time.Now()) {
		return newError(codeOfferState, "assertion %s is %s; only an ISSUED or RECEIVED assertion whose credential is signed can be offered to a wallet",
			id, effectiveState(a.Assertion.State, a.Assertion.ExpiredAt, time.Now()))
	}
	p := db.CreateCredentialOfferParams{ID: uuid.New(), AssertionID: a.Assertion.ID, OrgID: sc.Org, Mode: sc.Mode,
		TtlSeconds: int32(oid4vci.OfferTTL / time.Second)}
	var tx *string
	if wantTx {
		code := numericCode(txCodeDigits)
		tx = &code
		n := int16(txCodeDigits)
		p.TxCodeHash, p.TxCodeLen = hashSecret(code), &n
	}
	o, err := h.db.CreateCredentialOffer(r.Context(), p)
	if err != nil {
		return err
	}
	uri := h.offerURI(o.ID)
	data := credentialOffer{ID: o.ID, Offer: oid4vci.OfferLink(uri), CredentialOfferURI: uri,
		ExpiresAt: o.ExpiresAt.UTC().Format(time.RFC3339), TxCode: tx, ExchangeURL: h.exchangeURL(o.ID)}
	if tx == nil {
		link := lcwRequestLink(h.issuer.IssuerID(sc.Org, sc.Mode), data.ExchangeURL, o.ID)
		data.LCWRequest = &link
	}
	writeJSON(w, h.log, http.StatusCreated, envelope{Success: true, Data: data})
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

// offerProblem says why an offer cannot be used now ("" when it can).
func offerProblem(o db.GetLiveOfferRow) string {
	switch {
	case o.CredentialOffer.WithdrawnAt != nil:
		return "the offer was withdrawn"
	case o.AssertionState == string(db.AssertionProcessing):
		// The mail leaves before the issuance closes: a recipient quicker than the workflow is asked to wait.
		return "the credential is still being issued; try again in a minute"
	case !offerable(o.AssertionState, o.AssertionExpiredAt, o.CredentialKey, o.DbNow):
		return "the credential is no longer valid (cancelled, reissued or expired)"
	case !o.CredentialOffer.ExpiresAt.After(o.DbNow):
		return "the offer expired"
	case o.CredentialOffer.UsedAt != nil:
		return "the offer was used"
	}
	return ""
}

// serveOffer: GET /oid4vci/offers/{offerId}, the credential_offer_uri. Each fetch mints a fresh pre-authorized
// code (single use, minutes) until the offer is used, withdrawn, expired, or its assertion no longer valid.
func (h *handler) serveOffer(w http.ResponseWriter, r *http.Request) {
	id, err := parseUUID(chi.URLParam(r, "offerId"))
	if err != nil {
		h.oauthError(w, http.StatusNotFound, oid4vci.Errorf(oid4vci.InvalidRequest, "no such credential offer"))
		return
	}
	o, err := h.db.GetLiveOffer(r.Context(), id)
	if db.IsNotFound(err) {
		h.oauthError(w, http.StatusNotFound, oid4vci.Errorf(oid4vci.InvalidRequest, "no such credential offer"))
		return
	}
	if err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	if p := offerProblem(o); p != "" {
		h.oauthError(w, http.StatusGone, oid4vci.Errorf(oid4vci.InvalidRequest, "%s", p))
		return
	}
	code := secret(32)
	if err := h.db.CreatePreauthCode(r.Context(), db.CreatePreauthCodeParams{CodeHash: hashSecret(code), OfferID: id,
		TtlSeconds: int32(preAuthCodeTTL / time.Second)}); err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	grant := map[string]any{"pre-authorized_code": code}
	if o.CredentialOffer.TxCodeLen != nil {
		grant["tx_code"] = map[string]any{"input_mode": "numeric", "length": *o.CredentialOffer.TxCodeLen,
			"description": "The code your issuer gave you with this offer"}
	}
	h.writeProtocolJSON(w, http.StatusOK, map[string]any{
		"credential_issuer":            h.issuer.IssuerID(o.CredentialOffer.OrgID, o.CredentialOffer.Mode),
		"credential_configuration_ids": walletConfigs,
		"grants":                       map[string]any{preAuthGrant: grant},
	}, false)
}

// protocolFailure answers an unexpected failure (the database down) as the protocol's server_error, logged.
func (h *handler) protocolFailure(w http.ResponseWriter, r *http.Request, err error) {
	h.log.ErrorContext(r.Context(), "oid4vci", "path", r.URL.Path, "err", err)
	h.writeProtocolJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error",
		"error_description": "the issuer could not answer; try again"}, false)
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
		out = append(out, walletCopy{ID: copyURN(c.ID), Format: c.Format, Protocol: c.Protocol, ConfigurationID: c.ConfigurationID,
			HolderDID: c.HolderDid, ClaimedAt: c.CreatedAt.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z"), WalletEvent: c.NotificationEvent})
	}
	return out, nil
}
