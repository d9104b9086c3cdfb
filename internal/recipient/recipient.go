// Package recipient holds the per-recipient rules of an issuance that both the pipeline's check step and the API's
// dry run apply, so that a dry run predicts exactly what the check step will decide, and the staged form of a large
// issuance's recipients, which the API writes and the pipeline's load step reads (stage.go).
//
// It imports db (the staged rows' parameters) and internal/errcode.
package recipient

import "github.com/badged/badged/internal/errcode"

// Identity is how the duplicate rule tells recipients of one badge apart: the email, else the phone number, else
// the sourcedId. Two recipients with equal identities are the same person for DUPLICATE_ISSUANCE.
func Identity(email, phone, sourcedID *string) string {
	switch {
	case email != nil:
		return "e:" + *email
	case phone != nil:
		return "p:" + *phone
	case sourcedID != nil:
		return "s:" + *sourcedID
	}
	return "s:"
}

// Incomplete refuses a recipient without an identity, a name, or the contact its channel needs; nil when complete.
func Incomplete(name, receiveType string, email, phone, sourcedID *string) *errcode.Error {
	if email == nil && phone == nil && sourcedID == nil {
		return errcode.New(errcode.RecipientIdentityMissing, "the recipient has no email, phone number or sourcedId to identify them")
	}
	switch {
	case name == "":
		return errcode.New(errcode.MissingInfo, "the recipient has no name")
	case receiveType == "EMAIL" && email == nil:
		return errcode.New(errcode.MissingInfo, "receiveType EMAIL needs an email address")
	case receiveType == "KAKAOTALK" && phone == nil:
		return errcode.New(errcode.MissingInfo, "receiveType KAKAOTALK needs a phone number")
	}
	return nil
}
