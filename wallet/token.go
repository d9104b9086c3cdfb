package wallet

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/web"
)

// maxTokenBody bounds a token request (a form with a 43-character code and a tx_code).
const maxTokenBody = 8 << 10

// token: POST /oid4vci/token, the pre-authorized code grant (OID4VCI 1.0 §6). A judged grant uses the code up
// whatever its outcome, a wrong tx_code included, so a tx_code cannot be guessed against one code; and wrong
// tx_codes are counted per offer across all its codes, the maxTxCodeFailures-th suspending it (guard.go), so it
// cannot be guessed against fresh codes either. A request that is wrong in form is refused before the grant is
// judged, and leaves the code as it was (§6.3): a missing tx_code on an offer that asks for one (the wallet asks its
// user for the code and sends it with the same pre-authorized code), or a tx_code on an offer that asks for none.
//
// The answer carries no c_nonce: OpenID4VCI 1.0 (and Implementer's Draft 2 before it) moved it to the nonce
// endpoint, and a draft that still read it here cannot ask for a credential by configuration id anyway.
func (h *Handler) token(w http.ResponseWriter, r *http.Request) {
	body, perr := readProtocolBody(w, r, maxTokenBody, oid4vci.InvalidRequest)
	if perr != nil {
		h.oauthError(w, 0, perr)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/x-www-form-urlencoded") {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidRequest, "the token request is a form (application/x-www-form-urlencoded)"))
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidRequest, "the form could not be parsed"))
		return
	}
	if g := form.Get("grant_type"); g != preAuthGrant {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.UnsupportedGrantType, "only %s is supported", preAuthGrant))
		return
	}
	code := form.Get("pre-authorized_code")
	if code == "" || len(code) > 512 {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidRequest, "pre-authorized_code is required"))
		return
	}
	txCode := form.Get("tx_code")
	access := secret(32)
	var refusal *oid4vci.Error
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		offerID, err := q.RedeemPreauthCode(r.Context(), hashSecret(code))
		if db.IsNotFound(err) {
			refusal = oid4vci.Errorf(oid4vci.InvalidGrant, "the pre-authorized code is unknown, expired or already used; fetch the offer again")
			return nil
		}
		if err != nil {
			return err
		}
		// The offer's row lock: the tx_code is judged against a count no other request is changing.
		row, err := q.LockOfferForToken(r.Context(), offerID)
		if err != nil {
			return err
		}
		o := db.GetLiveOfferRow(row)
		if p := offerProblem(o); p != "" {
			refusal = oid4vci.Errorf(oid4vci.InvalidGrant, "%s", p)
			return nil // the code stays used
		}
		want := o.CredentialOffer.TxCodeHash
		switch {
		case want != nil && txCode == "":
			refusal = oid4vci.Errorf(oid4vci.InvalidRequest, "this offer asks for a tx_code: ask the user for the code the issuer gave them "+
				"and send it as tx_code with the same pre-authorized code")
			return errRefused // the code stays usable
		case want == nil && txCode != "":
			refusal = oid4vci.Errorf(oid4vci.InvalidRequest, "this offer asks for no tx_code; send the pre-authorized code without one")
			return errRefused // the code stays usable
		case want != nil && subtle.ConstantTimeCompare(want, hashSecret(txCode)) != 1:
			refusal, err = h.txCodeFailure(r, q, o)
			return err // the code stays used and the guess counted
		}
		return q.CreateWalletAccessToken(r.Context(), db.CreateWalletAccessTokenParams{TokenHash: hashSecret(access),
			OfferID: offerID, TtlSeconds: int32(accessTokenTTL / time.Second)})
	})
	switch {
	case err != nil && !errors.Is(err, errRefused): // a refusal whose writes did not commit is not answered as one
		h.protocolFailure(w, r, err)
	case refusal != nil:
		h.oauthError(w, 0, refusal)
	default:
		h.writeProtocolJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
			"expires_in": int(accessTokenTTL / time.Second)}, false)
	}
}

// txCodeFailure counts a wrong tx_code against the offer (the caller holds its row lock) and returns the refusal
// that says how many tries are left; the last one suspends the offer, which is logged for the operator.
func (h *Handler) txCodeFailure(r *http.Request, q *db.Queries, o db.GetLiveOfferRow) (*oid4vci.Error, error) {
	off := o.CredentialOffer
	f, err := q.RecordTxCodeFailure(r.Context(), db.RecordTxCodeFailureParams{ID: off.ID, MaxFailures: maxTxCodeFailures})
	if err != nil {
		return nil, err
	}
	if f.SuspendedAt != nil {
		h.log.WarnContext(r.Context(), "wallet offer suspended after wrong tx_codes", "offer", off.ID, "assertion", off.AssertionID,
			"org", off.OrgID, "failures", f.TxCodeFailures)
	}
	return oid4vci.Errorf(oid4vci.InvalidGrant, "%s", txCodeRefusal(int(f.TxCodeFailures), f.SuspendedAt != nil)), nil
}

// nonce: POST /oid4vci/nonce (OID4VCI 1.0 §7): a fresh c_nonce, single use, minutes; at most maxNoncesPerClient
// unused ones per client (guard.go), then 429.
func (h *Handler) nonce(w http.ResponseWriter, r *http.Request) {
	n := secret(24)
	client := web.ClientAddr(r)
	made, err := h.db.CreateWalletNonce(r.Context(), db.CreateWalletNonceParams{Nonce: n, TtlSeconds: int32(nonceTTL / time.Second),
		Client: client, MaxLive: maxNoncesPerClient})
	if err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	if made == 0 {
		h.log.WarnContext(r.Context(), "wallet nonces refused: the client holds too many", "client", client, "limit", maxNoncesPerClient)
		w.Header().Set("Retry-After", strconv.Itoa(int(nonceRetryAfter/time.Second)))
		h.oauthError(w, http.StatusTooManyRequests, oid4vci.Errorf(oid4vci.InvalidRequest,
			"this client holds %d unused nonces; use them or try again in a minute", maxNoncesPerClient))
		return
	}
	h.writeProtocolJSON(w, http.StatusOK, map[string]string{"c_nonce": n}, false)
}

// bearer reads the access token of a notification request; a refusal is 401 with WWW-Authenticate.
func (h *Handler) bearer(r *http.Request) (db.WalletAccessToken, *oid4vci.Error) {
	hash, berr := bearerHash(r)
	if berr != nil {
		return db.WalletAccessToken{}, berr
	}
	t, err := h.db.GetWalletAccessToken(r.Context(), hash)
	return t, tokenLookupError(err)
}

// bearerOffer reads the access token of a credential request together with its offer (GetTokenOffer, one round
// trip); the refusals are bearer's.
func (h *Handler) bearerOffer(r *http.Request) (db.WalletAccessToken, db.GetLiveOfferRow, *oid4vci.Error) {
	hash, berr := bearerHash(r)
	if berr != nil {
		return db.WalletAccessToken{}, db.GetLiveOfferRow{}, berr
	}
	t, err := h.db.GetTokenOffer(r.Context(), hash)
	if berr := tokenLookupError(err); berr != nil {
		return db.WalletAccessToken{}, db.GetLiveOfferRow{}, berr
	}
	return t.WalletAccessToken, db.GetLiveOfferRow{CredentialOffer: t.CredentialOffer, DbNow: t.DbNow,
		AssertionState: t.AssertionState, AssertionExpiredAt: t.AssertionExpiredAt, CredentialKey: t.CredentialKey,
		BadgeID: t.BadgeID, IssuanceID: t.IssuanceID, ProgramID: t.ProgramID, AssertionErrorCode: t.AssertionErrorCode}, nil
}

// bearerHash is the stored hash of the request's Bearer access token.
func bearerHash(r *http.Request) ([]byte, *oid4vci.Error) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || len(tok) > 512 {
		return nil, oid4vci.Errorf(oid4vci.InvalidToken, "an access token from the token endpoint is required (Authorization: Bearer)")
	}
	return hashSecret(strings.TrimSpace(tok)), nil
}

// tokenLookupError is the refusal of a failed access token lookup: unknown or expired, or the database's failure.
func tokenLookupError(err error) *oid4vci.Error {
	switch {
	case err == nil:
		return nil
	case db.IsNotFound(err):
		return oid4vci.Errorf(oid4vci.InvalidToken, "the access token is unknown or expired")
	}
	return &oid4vci.Error{Code: "server_error", Description: err.Error()}
}

// sameToken compares stored token hashes.
func sameToken(a, b []byte) bool { return bytes.Equal(a, b) }
