// Package oid4vci holds the protocol parts of OpenID for Verifiable Credential Issuance 1.0 that do not touch the
// database or HTTP: the holder's key proof (a JWT of type openid4vci-proof+jwt naming its key as did:key, did:jwk
// or jwk), the DIDs of holder keys, the VC-JWT form of an Open Badges 3.0 credential (OB 3.0 §8.2), the offer's
// links and QR code, and the protocol's error codes. Package wallet serves the protocol with them; the notify step
// (internal/notice) links offers with them.
//
// It imports internal/qr only of the module.
package oid4vci

import "fmt"

// Error codes of the token and credential endpoints (RFC 6749 §5.2, OID4VCI 1.0 §8.3.1.2).
const (
	InvalidRequest                     = "invalid_request"
	InvalidGrant                       = "invalid_grant"
	UnsupportedGrantType               = "unsupported_grant_type"
	InvalidToken                       = "invalid_token"
	InvalidCredentialRequest           = "invalid_credential_request"
	UnsupportedCredentialConfiguration = "unsupported_credential_configuration"
	InvalidProof                       = "invalid_proof"
	InvalidNonce                       = "invalid_nonce"
	InvalidNotificationID              = "invalid_notification_id"
	InvalidNotificationRequest         = "invalid_notification_request"
)

// Error is a refusal in the protocol's shape: {"error": Code, "error_description": Description}.
type Error struct {
	Code        string
	Description string
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

// Errorf returns an Error with a formatted description.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}
