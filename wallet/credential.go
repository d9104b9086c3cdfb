package wallet

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/webhook"
)

// maxCredentialBody bounds a credential request: one proof JWT (oid4vci.MaxProofBytes) and a few fields.
const maxCredentialBody = 16 << 10

// Proof freshness: how old a proof's iat may be, and how far ahead of the server's clock.
const (
	proofMaxAge  = 5 * time.Minute
	proofMaxSkew = time.Minute
)

// credentialRequest is the body of OID4VCI 1.0 §8.2. The singular "proof" is Implementer's Draft 2's (draft 15),
// kept for its wallets, which also name the credential_configuration_id; 1.0 defines only "proofs". It costs
// nothing: the same proof, checked the same way, and a request that sends both is refused.
type credentialRequest struct {
	ConfigurationID *string `json:"credential_configuration_id"`
	Identifier      *string `json:"credential_identifier"`
	Proofs          *struct {
		JWT []string `json:"jwt"`
	} `json:"proofs"`
	Proof *struct {
		ProofType string `json:"proof_type"`
		JWT       string `json:"jwt"`
	} `json:"proof"`
}

// credential: POST /oid4vci/credential. The wallet copy is built, signed and stored, its nonce consumed, the offer
// used and assertion.claimed recorded in one transaction that commits before the answer: a copy the wallet holds is
// always one the database knows. A refusal writes nothing.
func (h *Handler) credential(w http.ResponseWriter, r *http.Request) {
	tok, o, berr := h.bearerOffer(r)
	if berr != nil {
		h.bearerFailure(w, r, berr)
		return
	}
	body, perr := readProtocolBody(w, r, maxCredentialBody, oid4vci.InvalidCredentialRequest)
	if perr != nil {
		h.oauthError(w, 0, perr)
		return
	}
	var req credentialRequest
	if err := json.Unmarshal(body, &req); err != nil {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidCredentialRequest, "the body is not the JSON object of a credential request"))
		return
	}
	if req.Identifier != nil || req.ConfigurationID == nil {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidCredentialRequest, "name the credential_configuration_id (this issuer gives no credential_identifier)"))
		return
	}
	cfg := *req.ConfigurationID
	format := formatOf(cfg)
	if format == "" {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.UnsupportedCredentialConfiguration, "unknown credential_configuration_id %q", truncate(cfg, 64)))
		return
	}
	var jwt string
	switch {
	case req.Proofs != nil && req.Proof != nil:
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidCredentialRequest, "send proofs or proof, not both"))
		return
	case req.Proofs != nil && len(req.Proofs.JWT) == 1:
		jwt = req.Proofs.JWT[0]
	case req.Proof != nil && req.Proof.ProofType == "jwt":
		jwt = req.Proof.JWT
	default:
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidProof, "one jwt proof of the holder's key is required (proofs.jwt)"))
		return
	}
	off := o.CredentialOffer
	if p := offerProblem(o); p != "" && !(off.UsedAt != nil && off.WithdrawnAt == nil && sameToken(off.UsedByToken, tok.TokenHash) && offerProblem(withoutUse(o)) == "") {
		h.oauthError(w, http.StatusUnauthorized, oid4vci.Errorf(oid4vci.InvalidToken, "%s", p))
		return
	}
	proof, perr := oid4vci.VerifyProof(jwt, oid4vci.ProofCheck{Audience: h.issuer.IssuerID(off.OrgID, off.Mode),
		Now: time.Now(), MaxAge: proofMaxAge, MaxSkew: proofMaxSkew})
	if perr != nil {
		h.oauthError(w, 0, perr)
		return
	}
	copyID := uuid.New()
	issued, err := h.walletCopy(r, o, cfg, copyID, proof.HolderDID)
	if err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	raw, err := json.Marshal(issued)
	if err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	notification := secret(18)
	var refusal *oid4vci.Error
	var status int
	// The digest the copy's anchor receipt names: the credential as the wallet holds it (the compact JWT's bytes,
	// or the ldp_vc JSON as answered).
	sum := sha256.Sum256(raw)
	if jwt, ok := issued.(string); ok {
		sum = sha256.Sum256([]byte(jwt))
	}
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		// The nonce, the offer's use and the copy in one statement (ClaimWalletCopy); a refusal rolls it back.
		c, err := q.ClaimWalletCopy(r.Context(), db.ClaimWalletCopyParams{Nonce: proof.Nonce, TokenHash: tok.TokenHash,
			OfferID: off.ID, ID: copyID, AssertionID: off.AssertionID, OrgID: off.OrgID, ConfigurationID: cfg,
			Format: format, HolderDid: proof.HolderDID, Credential: raw, CredentialSha256: sum[:],
			NotificationID: notification,
			// A live copy waits for the worker's next wallet anchor batch; the claim itself never waits for a chain.
			AnchorPending: off.Mode == apikey.ModeLive})
		switch {
		case err != nil:
			return err
		case !c.NonceConsumed:
			refusal = oid4vci.Errorf(oid4vci.InvalidNonce, "the nonce is unknown, expired or already used; get a fresh one from the nonce endpoint")
			return errRefused
		case !sameToken(c.UsedByToken, tok.TokenHash):
			refusal, status = oid4vci.Errorf(oid4vci.InvalidToken, "the offer was used"), http.StatusUnauthorized
			return errRefused
		case c.CreatedAt == nil:
			refusal = oid4vci.Errorf(oid4vci.InvalidCredentialRequest, "this access token already received a credential of %s", cfg)
			return errRefused
		}
		data := webhook.AssertionData{AssertionID: off.AssertionID, IssuanceID: o.IssuanceID, BadgeID: o.BadgeID,
			ProgramID: o.ProgramID, StateCode: o.AssertionState, ErrorCode: o.AssertionErrorCode, Mode: off.Mode}
		return webhook.RecordAssertionClaimed(r.Context(), q, off.OrgID, data, webhook.ClaimedCopy{
			CredentialID: oid4vci.CopyID(copyID), Format: format, HolderDID: proof.HolderDID, ClaimedAt: *c.CreatedAt})
	})
	switch {
	case refusal != nil:
		h.oauthError(w, status, refusal)
	case err != nil:
		h.protocolFailure(w, r, err)
	default:
		h.metrics.WalletClaimed(format)
		h.writeProtocolJSON(w, http.StatusOK, map[string]any{"credentials": []map[string]any{{"credential": issued}},
			"notification_id": notification}, false)
	}
}

// errRefused rolls a claim's transaction back on a refusal (the refusal itself is answered).
var errRefused = fmt.Errorf("refused")

// withoutUse is the offer as if unused: the token that used it may claim its other configurations.
func withoutUse(o db.GetLiveOfferRow) db.GetLiveOfferRow {
	o.CredentialOffer.UsedAt = nil
	return o
}

// truncate bounds a client-controlled string in an answer.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// walletCopy builds and signs the holder-bound copy of the assertion's credential: the signed credential as
// published, without its proof, with its own id and credentialSubject.id = the holder's DID; the hashed recipient
// identifier, validity and the assertion's status list entry stay. ldp_vc is signed eddsa-rdfc-2022 with the
// organization's key; jwt_vc_json as a VC-JWT (OB 3.0 §8.2) with its RSA (RS256) or Ed25519 (EdDSA) key.
func (h *Handler) walletCopy(r *http.Request, o db.GetLiveOfferRow, cfg string, id uuid.UUID, holder string) (any, error) {
	ctx := r.Context()
	off := o.CredentialOffer
	rc, _, err := h.blob.Get(ctx, *o.CredentialKey)
	if err != nil {
		return nil, fmt.Errorf("read credential: %w", err)
	}
	defer rc.Close()
	src, err := io.ReadAll(io.LimitReader(rc, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("read credential: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("parse credential: %w", err)
	}
	delete(doc, "proof")
	doc["id"] = oid4vci.CopyID(id)
	subject, _ := doc["credentialSubject"].(map[string]any)
	if subject == nil {
		return nil, fmt.Errorf("credential %s has no credentialSubject", off.AssertionID)
	}
	subject["id"] = holder
	switch cfg {
	case cfgLDP:
		signer, err := h.issuer.Signer(ctx, off.OrgID, off.Mode)
		if err != nil {
			return nil, err
		}
		signed, err := signer.Sign(ctx, doc, time.Now())
		if err != nil {
			return nil, err
		}
		return json.RawMessage(signed), nil
	case cfgJWTEdDSA:
		key, err := h.issuer.Key(ctx, off.OrgID, off.Mode)
		if err != nil {
			return nil, err
		}
		kid, err := h.issuerKid(off.OrgID, off.Mode, key.Public())
		if err != nil {
			return nil, err
		}
		return oid4vci.SignJWT(doc, key, kid)
	case cfgJWTRS256:
		key, err := h.issuer.RSAKey(ctx, off.OrgID, off.Mode)
		if err != nil {
			return nil, err
		}
		kid, err := h.issuerKid(off.OrgID, off.Mode, key.Public())
		if err != nil {
			return nil, err
		}
		return oid4vci.SignJWT(doc, key, kid)
	}
	return nil, fmt.Errorf("no signer for %s", cfg)
}

// notification: POST /oid4vci/notification (OID4VCI 1.0 §11): the wallet reports what became of a copy.
func (h *Handler) notification(w http.ResponseWriter, r *http.Request) {
	tok, berr := h.bearer(r)
	if berr != nil {
		h.bearerFailure(w, r, berr)
		return
	}
	body, perr := readProtocolBody(w, r, 8<<10, oid4vci.InvalidNotificationRequest)
	if perr != nil {
		h.oauthError(w, 0, perr)
		return
	}
	var req struct {
		ID    string `json:"notification_id"`
		Event string `json:"event"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.ID == "" {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidNotificationRequest, "the body must name notification_id and event"))
		return
	}
	switch req.Event {
	case "credential_accepted", "credential_deleted", "credential_failure":
	default:
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidNotificationRequest, "event must be credential_accepted, credential_deleted or credential_failure"))
		return
	}
	n, err := h.db.RecordWalletNotification(r.Context(), db.RecordWalletNotificationParams{NotificationID: req.ID,
		TokenHash: tok.TokenHash, NotificationEvent: &req.Event})
	if err != nil {
		h.protocolFailure(w, r, err)
		return
	}
	if n == 0 {
		h.oauthError(w, 0, oid4vci.Errorf(oid4vci.InvalidNotificationID, "no credential of this access token has that notification_id"))
		return
	}
	h.metrics.WalletNotified(req.Event)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}
