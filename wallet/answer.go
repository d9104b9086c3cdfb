package wallet

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/badged/badged/internal/oid4vci"
)

// How the wallet protocols answer: their own bodies, not the contract's envelope. Every refusal of the OpenID4VCI
// endpoints is OAuth's error body (oauthError), every refusal of a VC-API exchange a problem (problem), and an
// unexpected failure of either is logged and answered as its protocol's server error; no handler writes a refusal
// another way.

// writeProtocolJSON answers a body of the OAuth / OpenID4VCI protocols (not the contract's envelope). Metadata may
// be cached briefly; token, nonce and credential answers are never stored (RFC 6749 §5.1). Which origins may read
// them is api's CORS table's to say.
func (h *Handler) writeProtocolJSON(w http.ResponseWriter, status int, v any, public bool) {
	if public {
		w.Header().Set("Cache-Control", "public, max-age=300")
	} else {
		w.Header().Set("Cache-Control", "no-store")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		h.log.Warn("write response", "err", err)
	}
}

// oauthError answers a refusal in the protocol's shape; status 0 means 400.
func (h *Handler) oauthError(w http.ResponseWriter, status int, e *oid4vci.Error) {
	if status == 0 {
		status = http.StatusBadRequest
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer error="`+e.Code+`", error_description="`+sanitizeHeader(e.Description)+`"`)
	}
	h.writeProtocolJSON(w, status, map[string]string{"error": e.Code, "error_description": e.Description}, false)
}

func sanitizeHeader(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			out = append(out, c)
		}
	}
	return string(out)
}

// protocolFailure answers an unexpected failure (the database down) as the protocol's server_error, logged.
func (h *Handler) protocolFailure(w http.ResponseWriter, r *http.Request, err error) {
	h.log.ErrorContext(r.Context(), "oid4vci", "path", r.URL.Path, "err", err)
	h.writeProtocolJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error",
		"error_description": "the issuer could not answer; try again"}, false)
}

// bearerFailure answers a bearer refusal: 401, or 500 when the database failed.
func (h *Handler) bearerFailure(w http.ResponseWriter, r *http.Request, e *oid4vci.Error) {
	if e.Code == "server_error" {
		h.protocolFailure(w, r, e)
		return
	}
	h.oauthError(w, http.StatusUnauthorized, e)
}

// readProtocolBody reads at most limit bytes of a protocol request; a larger body is refused with code.
func readProtocolBody(w http.ResponseWriter, r *http.Request, limit int64, code string) ([]byte, *oid4vci.Error) {
	if r.ContentLength > limit {
		return nil, oid4vci.Errorf(code, "the request body is larger than %d bytes", limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, oid4vci.Errorf(code, "the request body is larger than %d bytes", limit)
		}
		return nil, oid4vci.Errorf(code, "the request body could not be read")
	}
	return body, nil
}

// Refusals of the VC-API exchange are problem details (RFC 9457), as the VC-API and the VC Data Model 2.0 (§7.1
// "Problem Details") give them: type, title, detail, the HTTP status, and the data model's negative code for the
// data model's own types. Clients branch on type.
const (
	problemParsing    = "https://www.w3.org/TR/vc-data-model#PARSING_ERROR"
	problemCrypto     = "https://www.w3.org/TR/vc-data-model#CRYPTOGRAPHIC_SECURITY_ERROR"
	problemMalformed  = "https://www.w3.org/TR/vc-data-model#MALFORMED_VALUE_ERROR"
	problemNotFound   = "urn:badged:problem:exchange-not-found"
	problemOfferEnded = "urn:badged:problem:offer-ended"
	problemTxCode     = "urn:badged:problem:tx-code-required"
	problemTooMany    = "urn:badged:problem:too-many-requests"
	problemServer     = "urn:badged:problem:server-error"
)

// problem is one refusal of an exchange.
type problem struct {
	Type   string `json:"type"`
	Code   int    `json:"code,omitempty"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Status int    `json:"status"`
}

// problem writes p as application/problem+json.
func (h *Handler) problem(w http.ResponseWriter, p *problem) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	if err := json.NewEncoder(w).Encode(p); err != nil {
		h.log.Warn("write response", "err", err)
	}
}

func probNotFound() *problem {
	return &problem{Status: http.StatusNotFound, Type: problemNotFound, Title: "No such exchange",
		Detail: "no credential offer has this id"}
}

func probUnknownChallenge() *problem {
	return &problem{Status: http.StatusBadRequest, Type: problemCrypto, Code: -65, Title: "Unknown challenge",
		Detail: "the challenge is not one this exchange gave (or it expired or was used); POST {} for a fresh one and sign it with its domain"}
}

func probOfferEnded(detail string) *problem {
	return &problem{Status: http.StatusGone, Type: problemOfferEnded, Title: "The offer has ended", Detail: detail}
}

// probFailure logs an unexpected failure (the database down) and answers it as a 500 problem.
func (h *Handler) probFailure(r *http.Request, err error) *problem {
	h.log.ErrorContext(r.Context(), "vc-api exchange", "path", r.URL.Path, "err", err)
	return &problem{Status: http.StatusInternalServerError, Type: problemServer, Title: "The issuer could not answer",
		Detail: "try again"}
}
