// Package errcode holds the assertion errorCode values of the API contract and an error type that carries one.
//
// Every per-recipient step (sign, anchor, bake, publish, notify) reports failures as *Error so that the workflow can
// turn them into a Temporal ApplicationError typed by the code, and the final code can be written to the assertion.
//
// It imports nothing of the module: every other package may import it.
package errcode

import (
	"errors"
	"fmt"
)

// Code is an assertion errorCode as listed in the contract ("Assertion errorCode").
type Code string

// The full list of assertion error codes (v3).
const (
	MissingInfo                      Code = "MISSING_INFO"
	InternalServerError              Code = "INTERNAL_SERVER_ERROR"
	ExternalServerError              Code = "EXTERNAL_SERVER_ERROR"
	EmailServerError                 Code = "EMAIL_SERVER_ERROR"
	KakaoServerError                 Code = "KAKAO_SERVER_ERROR"
	RejectedEmail                    Code = "REJECTED_EMAIL"
	BouncedEmail                     Code = "BOUNCED_EMAIL"
	RecipientNotFound                Code = "RECIPIENT_NOT_FOUND"
	RecipientIdentityMissing         Code = "RECIPIENT_IDENTITY_MISSING"
	DuplicateIssuance                Code = "DUPLICATE_ISSUANCE"
	BadgeImageMissing                Code = "BADGE_IMAGE_MISSING"
	BadgeImageDownloadFailed         Code = "BADGE_IMAGE_DOWNLOAD_FAILED"
	IssuerKeyGenerationFailed        Code = "ISSUER_KEY_GENERATION_FAILED"
	CredentialCanonicalizationFailed Code = "CREDENTIAL_CANONICALIZATION_FAILED"
	CredentialHashFailed             Code = "CREDENTIAL_HASH_FAILED"
	CredentialSigningFailed          Code = "CREDENTIAL_SIGNING_FAILED"
	CredentialSerializationFailed    Code = "CREDENTIAL_SERIALIZATION_FAILED"
	BlockchainConfigMissing          Code = "BLOCKCHAIN_CONFIG_MISSING"
	BlockchainConfigInvalid          Code = "BLOCKCHAIN_CONFIG_INVALID"
	BlockchainRPCFailed              Code = "BLOCKCHAIN_RPC_FAILED"
	BlockchainTxRejected             Code = "BLOCKCHAIN_TX_REJECTED"
	BlockchainTxResultUnknown        Code = "BLOCKCHAIN_TX_RESULT_UNKNOWN"
	BlockchainTxReverted             Code = "BLOCKCHAIN_TX_REVERTED"
	BlockchainReceiptInvalid         Code = "BLOCKCHAIN_RECEIPT_INVALID"
	BadgeImageBakingFailed           Code = "BADGE_IMAGE_BAKING_FAILED"
	ArtifactUploadFailed             Code = "ARTIFACT_UPLOAD_FAILED"
	ArtifactPersistenceFailed        Code = "ARTIFACT_PERSISTENCE_FAILED"
	IssuanceLockTimeout              Code = "ISSUANCE_LOCK_TIMEOUT"
	IssuanceLockLost                 Code = "ISSUANCE_LOCK_LOST"
	NotificationRecipientMissing     Code = "NOTIFICATION_RECIPIENT_MISSING"
	NotificationChannelUnsupported   Code = "NOTIFICATION_CHANNEL_UNSUPPORTED"
	EmailSendFailed                  Code = "EMAIL_SEND_FAILED"
	KakaoSendFailed                  Code = "KAKAO_SEND_FAILED"
	NotificationDeliveryFailed       Code = "NOTIFICATION_DELIVERY_FAILED"
	Unknown                          Code = "UNKNOWN"
)

// All lists every code in the contract's order. The retry policy file must classify each of them.
var All = []Code{
	MissingInfo, InternalServerError, ExternalServerError, EmailServerError, KakaoServerError, RejectedEmail,
	BouncedEmail, RecipientNotFound, RecipientIdentityMissing, DuplicateIssuance, BadgeImageMissing,
	BadgeImageDownloadFailed, IssuerKeyGenerationFailed, CredentialCanonicalizationFailed, CredentialHashFailed,
	CredentialSigningFailed, CredentialSerializationFailed, BlockchainConfigMissing, BlockchainConfigInvalid,
	BlockchainRPCFailed, BlockchainTxRejected, BlockchainTxResultUnknown, BlockchainTxReverted,
	BlockchainReceiptInvalid, BadgeImageBakingFailed, ArtifactUploadFailed, ArtifactPersistenceFailed,
	IssuanceLockTimeout, IssuanceLockLost, NotificationRecipientMissing, NotificationChannelUnsupported,
	EmailSendFailed, KakaoSendFailed, NotificationDeliveryFailed, Unknown,
}

// Error is a failure of one per-recipient step, tagged with the assertion errorCode it maps to.
type Error struct {
	Code Code
	Msg  string // what failed, for logs and operators; never shown to recipients
	Err  error  // the underlying cause, may be nil
}

// New returns an *Error with the code and a message.
func New(code Code, msg string) *Error { return &Error{Code: code, Msg: msg} }

// Wrap returns an *Error with the code, a message and the cause, or nil when err is nil. It returns the error
// interface, not *Error: a nil *Error stored in an error would compare non-nil and report a failure that is not.
func Wrap(code Code, msg string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Msg: msg, Err: err}
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%s: %s", e.Code, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %v", e.Code, e.Msg, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Of returns the code carried by err, or Unknown when err carries none. It returns "" for a nil error.
func Of(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Unknown
}
