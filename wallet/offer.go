package wallet

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/web"
)

// Lifetimes. An offer outlives a week-old mail; each fetch of its URI mints a code that lives minutes.
const (
	preAuthCodeTTL = 10 * time.Minute
	accessTokenTTL = 10 * time.Minute
	nonceTTL       = 5 * time.Minute
	txCodeDigits   = 6
)

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

// Offerable reports whether an assertion's credential may go to a wallet: issued, signed and unexpired. The keyed
// API refuses to offer any other (AST040); an offer whose assertion stops being offerable ends.
func Offerable(state string, expiredAt *time.Time, credentialKey *string, now time.Time) bool {
	s := web.EffectiveState(state, expiredAt, now)
	return (s == db.AssertionIssued || s == db.AssertionReceived) && credentialKey != nil
}

// offerURI is the https URI a wallet fetches the offer from.
func (h *Handler) offerURI(id uuid.UUID) string { return oid4vci.OfferURI(h.baseURL, id) }

// NewOffer is an offer the keyed API asks for (POST /public/v3/assertions/{id}/credential-offers), of an assertion
// the caller found in the key's scope and checked with Offerable.
type NewOffer struct {
	AssertionID, OrgID uuid.UUID
	Mode               string
	TxCode             bool // ask for a second factor that the wallet's user types in
}

// Offer is a created offer: what the keyed API answers.
type Offer struct {
	ID        uuid.UUID
	Link      string // the openid-credential-offer:// link (and QR code content) that opens a wallet on it
	URI       string // its credential_offer_uri
	ExpiresAt time.Time
	TxCode    *string // the second factor, when asked: shown only here, stored as SHA-256
	// The same offer as a VC-API exchange, and the link that opens the DCC Learner Credential Wallet on it
	// (exchange.go); LCWRequest is nil when the offer asks for a tx_code, which that wallet cannot enter.
	ExchangeURL string
	LCWRequest  *string
}

// CreateOffer stores a new offer of an assertion and returns it.
func (h *Handler) CreateOffer(ctx context.Context, n NewOffer) (Offer, error) {
	p := db.CreateCredentialOfferParams{ID: uuid.New(), AssertionID: n.AssertionID, OrgID: n.OrgID, Mode: n.Mode,
		TtlSeconds: int32(oid4vci.OfferTTL / time.Second)}
	var tx *string
	if n.TxCode {
		code := numericCode(txCodeDigits)
		tx = &code
		digits := int16(txCodeDigits)
		p.TxCodeHash, p.TxCodeLen = hashSecret(code), &digits
	}
	o, err := h.db.CreateCredentialOffer(ctx, p)
	if err != nil {
		return Offer{}, err
	}
	uri := h.offerURI(o.ID)
	out := Offer{ID: o.ID, Link: oid4vci.OfferLink(uri), URI: uri, ExpiresAt: o.ExpiresAt, TxCode: tx,
		ExchangeURL: h.exchangeURL(o.ID)}
	if tx == nil {
		link := lcwRequestLink(h.issuer.IssuerID(n.OrgID, n.Mode), out.ExchangeURL, o.ID)
		out.LCWRequest = &link
	}
	return out, nil
}

// offerProblem says why an offer cannot be used now ("" when it can).
func offerProblem(o db.GetLiveOfferRow) string {
	switch {
	case o.CredentialOffer.WithdrawnAt != nil:
		return "the offer was withdrawn"
	case o.CredentialOffer.SuspendedAt != nil:
		return suspendedProblem
	case o.AssertionState == string(db.AssertionProcessing):
		// The mail leaves before the issuance closes: a recipient quicker than the workflow is asked to wait.
		return "the credential is still being issued; try again in a minute"
	case !Offerable(o.AssertionState, o.AssertionExpiredAt, o.CredentialKey, o.DbNow):
		return "the credential is no longer valid (cancelled, reissued or expired)"
	case !o.CredentialOffer.ExpiresAt.After(o.DbNow):
		return "the offer expired"
	case o.CredentialOffer.UsedAt != nil:
		return "the offer was used"
	}
	return ""
}

// serveOffer: GET /oid4vci/offers/{offerId}, the credential_offer_uri. Each fetch mints a fresh pre-authorized
// code (single use, minutes) until the offer is used, withdrawn, suspended, expired, or its assertion no longer
// valid; at most maxCodesPerOffer within the codes' lifetime (guard.go), then 429.
func (h *Handler) serveOffer(w http.ResponseWriter, r *http.Request) {
	id, err := web.ParseUUID(r.PathValue("offerId"))
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
	n, err := h.db.CreatePreauthCode(r.Context(), db.CreatePreauthCodeParams{CodeHash: hashSecret(code), OfferID: id,
		TtlSeconds: int32(preAuthCodeTTL / time.Second), WindowSeconds: int32(preAuthCodeTTL / time.Second),
		MaxMinted: maxCodesPerOffer})
	if err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	if n == 0 {
		h.log.WarnContext(r.Context(), "wallet offer fetched too often; no code minted", "offer", id, "limit", maxCodesPerOffer)
		w.Header().Set("Retry-After", strconv.Itoa(int(preAuthCodeTTL/time.Second)))
		h.oauthError(w, http.StatusTooManyRequests, oid4vci.Errorf(oid4vci.InvalidRequest,
			"this offer was fetched %d times in %d minutes; try again later", maxCodesPerOffer, int(preAuthCodeTTL/time.Minute)))
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
