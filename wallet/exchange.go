package wallet

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/web"
	"github.com/badged/badged/internal/webhook"
)

// The VC-API exchange of an offer, for the DCC Learner Credential Wallet (LCW) and other VC-API wallets. The offer
// is the exchange: POST /exchanges/{offerId}. The LCW reaches it two ways (its app/lib/exchanges.ts and
// app/lib/credentialRequest.ts):
//
//   - a VC-API exchange (the wallet was given the exchange URL as protocols.vcapi): it POSTs {} and gets a
//     DIDAuthentication VerifiablePresentationRequest with a fresh challenge and the domain; it POSTs
//     {"verifiablePresentation": <signed by its did:key, that challenge and domain>} and gets
//     {"verifiablePresentation": {..., "verifiableCredential": [the copy]}};
//   - the deep link (lcwRequestLink: vc_request_url, issuer, auth_type=bearer, challenge): it POSTs the signed
//     presentation itself, with the link's challenge and no domain, and takes the presentation it gets back.
//
// The link's challenge is the offer's id: the link is the capability (as the OpenID4VCI offer URI is) and the
// offer is used once, so a presentation made for it cannot serve twice, nor for another offer. A fresh challenge
// of the request flow is single use and lives minutes. Either way the copy is the OpenID4VCI ldp_vc copy, stored,
// the offer used and assertion.claimed recorded in one transaction that commits before the answer.

const (
	maxExchangeBody    = 64 << 10 // a DIDAuthentication presentation is about 1 KB
	exchangeChallenge  = 10 * time.Minute
	lcwRequestEndpoint = "https://lcw.app/request.html" // the DCC's own exchanger links the LCW this way
)

// exchangeURL is the VC-API exchange of an offer.
func (h *Handler) exchangeURL(offer uuid.UUID) string {
	return h.baseURL + ExchangePrefix + "/" + offer.String()
}

// exchangeDomain is the domain a presentation of the request flow must be bound to: the service's origin.
func (h *Handler) exchangeDomain() string {
	u, err := url.Parse(h.baseURL)
	if err != nil || u.Host == "" {
		return h.baseURL
	}
	return u.Scheme + "://" + u.Host
}

// lcwRequestLink is the link that opens the Learner Credential Wallet on an offer (the https form works with
// and without the app installed; dccrequest://request?<same query> opens the app directly).
func lcwRequestLink(issuerID, exchangeURL string, offer uuid.UUID) string {
	q := url.Values{"issuer": {issuerID}, "auth_type": {"bearer"}, "challenge": {offer.String()}, "vc_request_url": {exchangeURL}}
	return lcwRequestEndpoint + "?" + q.Encode()
}

// exchangeProtocols: GET /exchanges/{offerId}/protocols, the interaction URL's protocols object (CHAPI's
// convention), naming both ways into a wallet. Only a live offer answers.
func (h *Handler) exchangeProtocols(w http.ResponseWriter, r *http.Request) {
	o, prob := h.liveExchangeOffer(r)
	if prob != nil {
		h.problem(w, prob)
		return
	}
	h.writeProtocolJSON(w, http.StatusOK, map[string]any{"protocols": map[string]string{
		"vcapi": h.exchangeURL(o.CredentialOffer.ID), "OID4VCI": oid4vci.OfferLink(h.offerURI(o.CredentialOffer.ID))}}, false)
}

// liveExchangeOffer reads the offer a path names and says why it cannot be exchanged, if it cannot.
func (h *Handler) liveExchangeOffer(r *http.Request) (db.GetLiveOfferRow, *problem) {
	id, err := web.ParseUUID(r.PathValue("offerId"))
	if err != nil {
		return db.GetLiveOfferRow{}, probNotFound()
	}
	o, err := h.db.GetLiveOffer(r.Context(), id)
	if db.IsNotFound(err) {
		return o, probNotFound()
	}
	if err != nil {
		return o, h.probFailure(r, err)
	}
	if p := offerProblem(o); p != "" {
		return o, probOfferEnded(p)
	}
	if o.CredentialOffer.TxCodeHash != nil {
		return o, &problem{Status: http.StatusConflict, Type: problemTxCode, Title: "This offer asks for a transaction code",
			Detail: "the organization asked for a tx_code with this offer, which only an OpenID4VCI wallet can enter; use the offer's openid-credential-offer link"}
	}
	return o, nil
}

// exchange: POST /exchanges/{offerId}. {} (or any body without a presentation) starts the exchange; a body with
// a presentation ({"verifiablePresentation": …}, or the presentation itself, as the LCW's deep link flow posts)
// finishes it.
func (h *Handler) exchange(w http.ResponseWriter, r *http.Request) {
	body, perr := readProtocolBody(w, r, maxExchangeBody, "too_large")
	if perr != nil && r.ContentLength <= maxExchangeBody && !strings.Contains(perr.Description, "larger") {
		h.problem(w, &problem{Status: http.StatusBadRequest, Type: problemParsing, Code: -64,
			Title: "The request could not be read", Detail: perr.Description})
		return
	}
	if perr != nil {
		h.problem(w, &problem{Status: http.StatusRequestEntityTooLarge, Type: problemMalformed, Code: -66,
			Title: "The request is too large", Detail: perr.Description})
		return
	}
	var req map[string]json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &req); err != nil || req == nil {
			h.problem(w, &problem{Status: http.StatusBadRequest, Type: problemParsing, Code: -64,
				Title: "The request is not JSON", Detail: "send a JSON object: {} to start the exchange, {\"verifiablePresentation\": …} to finish it"})
			return
		}
	}
	o, prob := h.liveExchangeOffer(r)
	if prob != nil {
		h.problem(w, prob)
		return
	}
	if vp, wrapped := presentationOf(req, body); vp != nil {
		h.finishExchange(w, r, o, vp, wrapped)
		return
	}
	h.startExchange(w, r, o)
}

// presentationOf finds the presentation of an exchange request: under verifiablePresentation (VC-API), or the
// body itself when it is one (the LCW's direct post). nil: the request starts the exchange.
func presentationOf(req map[string]json.RawMessage, body []byte) (vp []byte, wrapped bool) {
	if raw, ok := req["verifiablePresentation"]; ok {
		return raw, true
	}
	if _, ok := req["proof"]; ok {
		return body, false
	}
	if _, ok := req["holder"]; ok {
		return body, false
	}
	return nil, false
}

// startExchange answers the DIDAuthentication request with a fresh challenge.
func (h *Handler) startExchange(w http.ResponseWriter, r *http.Request, o db.GetLiveOfferRow) {
	challenge := secret(24)
	n, err := h.db.CreateExchangeChallenge(r.Context(), db.CreateExchangeChallengeParams{ChallengeHash: hashSecret(challenge),
		OfferID: o.CredentialOffer.ID, TtlSeconds: int32(exchangeChallenge / time.Second)})
	if err != nil {
		h.problem(w, h.probFailure(r, err))
		return
	}
	if n == 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(exchangeChallenge/time.Second)))
		h.problem(w, &problem{Status: http.StatusTooManyRequests, Type: problemTooMany, Title: "Too many open requests",
			Detail: "this offer has too many unanswered presentation requests; answer one or try again in a few minutes"})
		return
	}
	endpoint := h.exchangeURL(o.CredentialOffer.ID)
	h.writeProtocolJSON(w, http.StatusOK, map[string]any{"verifiablePresentationRequest": map[string]any{
		"query": []any{map[string]any{"type": "DIDAuthentication", "acceptedMethods": []any{map[string]string{"method": "key"}},
			"acceptedCryptosuites": []any{map[string]string{"cryptosuite": credential.ProofTypeEd25519Sig2020},
				map[string]string{"cryptosuite": credential.Cryptosuite}}}},
		"challenge": challenge,
		"domain":    h.exchangeDomain(),
		"interact":  map[string]any{"service": []any{map[string]string{"type": "UnmediatedPresentationService2021", "serviceEndpoint": endpoint}}},
	}}, false)
}

// finishExchange verifies the holder's presentation and answers the bound copy. A refusal writes nothing.
func (h *Handler) finishExchange(w http.ResponseWriter, r *http.Request, o db.GetLiveOfferRow, vp []byte, wrapped bool) {
	off := o.CredentialOffer
	auth, err := credential.VerifyAuthentication(r.Context(), vp, credential.PresentationLimits)
	if err != nil {
		h.problem(w, presentationProblem(err))
		return
	}
	// The deep link's challenge is the offer id and may come without a domain (the LCW signs none there); a
	// request's challenge is single use and must come with this service's domain.
	link := auth.Challenge == off.ID.String()
	if auth.Domain != h.exchangeDomain() && !(link && auth.Domain == "") {
		if !link && auth.Domain == "" {
			h.problem(w, probUnknownChallenge())
			return
		}
		h.problem(w, &problem{Status: http.StatusBadRequest, Type: problemCrypto, Code: -65, Title: "Wrong domain",
			Detail: "the presentation's proof must name the domain " + h.exchangeDomain()})
		return
	}
	token := hashSecret(auth.Challenge)
	if link {
		sum := sha256.Sum256([]byte("lcw-link:" + off.ID.String()))
		token = sum[:]
	}
	copyID := uuid.New()
	issued, err := h.walletCopy(r, o, cfgLDP, copyID, auth.Holder)
	if err != nil {
		h.problem(w, h.probFailure(r, err))
		return
	}
	raw, err := json.Marshal(issued)
	if err != nil {
		h.problem(w, h.probFailure(r, err))
		return
	}
	var refusal *problem
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		if !link {
			n, err := q.ConsumeExchangeChallenge(r.Context(), db.ConsumeExchangeChallengeParams{ChallengeHash: token, OfferID: off.ID})
			if err != nil {
				return err
			}
			if n == 0 {
				refusal = probUnknownChallenge()
				return errRefused
			}
		}
		usedBy, err := q.MarkOfferUsed(r.Context(), db.MarkOfferUsedParams{ID: off.ID, TokenHash: token})
		if err != nil {
			return err
		}
		if !sameToken(usedBy, token) {
			refusal = probOfferEnded("the offer was used")
			return errRefused
		}
		sum := sha256.Sum256(raw)
		c, err := q.CreateExchangeCredential(r.Context(), db.CreateExchangeCredentialParams{ID: copyID, AssertionID: off.AssertionID,
			OfferID: off.ID, OrgID: off.OrgID, TokenHash: token, ConfigurationID: cfgLDP, HolderDid: auth.Holder,
			Credential: raw, CredentialSha256: sum[:], NotificationID: secret(18)})
		if db.IsNotFound(err) {
			refusal = probOfferEnded("the offer was used")
			return errRefused
		}
		if err != nil {
			return err
		}
		data := webhook.AssertionData{AssertionID: off.AssertionID, IssuanceID: o.IssuanceID, BadgeID: o.BadgeID,
			ProgramID: o.ProgramID, StateCode: o.AssertionState, ErrorCode: o.AssertionErrorCode, Mode: off.Mode}
		return webhook.RecordAssertionClaimed(r.Context(), q, off.OrgID, data, webhook.ClaimedCopy{
			CredentialID: oid4vci.CopyID(copyID), Format: "ldp_vc", HolderDID: auth.Holder, ClaimedAt: c.CreatedAt})
	})
	switch {
	case refusal != nil:
		h.problem(w, refusal)
		return
	case err != nil:
		h.problem(w, h.probFailure(r, err))
		return
	}
	h.metrics.WalletClaimed("ldp_vc")
	h.log.InfoContext(r.Context(), "wallet copy claimed over a VC-API exchange", "offer", off.ID, "assertion", off.AssertionID,
		"credential", oid4vci.CopyID(copyID), "proof", auth.ProofType, "deepLink", link)
	out := map[string]any{"@context": []string{credential.ContextCredentialsV2}, "type": []string{"VerifiablePresentation"},
		"verifiableCredential": []any{issued}}
	if wrapped {
		h.writeProtocolJSON(w, http.StatusOK, map[string]any{"verifiablePresentation": out}, false)
		return
	}
	h.writeProtocolJSON(w, http.StatusOK, out, false)
}

// presentationProblem names why a presentation was refused.
func presentationProblem(err error) *problem {
	switch {
	case errors.Is(err, credential.ErrDocumentTooLarge):
		return &problem{Status: http.StatusRequestEntityTooLarge, Type: problemMalformed, Code: -66, Title: "The presentation is too large", Detail: err.Error()}
	case errors.Is(err, credential.ErrUnknownContext), errors.Is(err, credential.ErrUndefinedTerm), errors.Is(err, credential.ErrMalformedJSONLD):
		return &problem{Status: http.StatusBadRequest, Type: problemMalformed, Code: -66, Title: "The presentation cannot be read", Detail: err.Error()}
	}
	return &problem{Status: http.StatusBadRequest, Type: problemCrypto, Code: -65, Title: "The presentation does not prove the holder", Detail: err.Error()}
}
