package api

import (
	"encoding/json"
	"net/http"
)

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
func (h *handler) problem(w http.ResponseWriter, p *problem) {
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

// probFailure logs an unexpected failure (the database down) and answers it as a 500 problem.
func probFailure(r *http.Request, h *handler, err error) *problem {
	h.log.ErrorContext(r.Context(), "vc-api exchange", "path", r.URL.Path, "err", err)
	return &problem{Status: http.StatusInternalServerError, Type: problemServer, Title: "The issuer could not answer",
		Detail: "try again"}
}
