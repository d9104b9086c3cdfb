package api

import (
	"net/http"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
)

// credentialStatus is the public, machine-readable state of a credential: what the badge page says first, for
// programs (`badged credential verify` reads it for the date and reason of a revocation, which the status list
// cannot carry).
type credentialStatus struct {
	ID               string  `json:"id"`
	State            string  `json:"state"` // VALID, TEST (a test credential not revoked or expired), REVOKED, EXPIRED or REPLACED
	Test             bool    `json:"test"`  // a test-mode credential, whatever its state: never a real badge
	IssuedAt         string  `json:"issuedAt"`
	ExpiresAt        *string `json:"expiresAt"`
	RevokedAt        *string `json:"revokedAt"`
	RevocationReason *string `json:"revocationReason"`
	VerifyURL        string  `json:"verifyUrl"`
}

// getCredentialStatus answers GET /credentials/{id}/status. It reads the stored state only; the page and any
// verifier check the signature and the status list themselves.
func (h *handler) getCredentialStatus(w http.ResponseWriter, r *http.Request) error {
	a, err := h.publicAssertion(r)
	if err != nil {
		return err
	}
	as := a.Assertion
	out := credentialStatus{ID: h.urls().CredentialID(as.ID), State: "VALID", IssuedAt: utcString(as.IssuedAt),
		VerifyURL: h.urls().VerifyURL(as.ID), Test: as.Mode == apikey.ModeTest}
	if out.Test {
		out.State = "TEST"
	}
	if as.ExpiredAt != nil {
		s := utcString(*as.ExpiredAt)
		out.ExpiresAt = &s
	}
	switch effectiveState(as.State, as.ExpiredAt, h.now()) {
	case db.AssertionRevoked:
		out.State, out.RevocationReason = "REVOKED", as.RevocationReason
		if as.RevokedAt != nil {
			s := utcString(*as.RevokedAt)
			out.RevokedAt = &s
		}
	case db.AssertionExpired:
		out.State = "EXPIRED"
	case db.AssertionReissued:
		out.State = "REPLACED"
	}
	w.Header().Set("Cache-Control", "no-cache") // a revocation shows at once
	h.writePublicJSON(w, "application/json", out)
	return nil
}

func utcString(t time.Time) string { return t.UTC().Format(time.RFC3339) }
