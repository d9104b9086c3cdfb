package api

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// readIssuanceBody reads the body of POST /badges/{badgeId}/issuances: plain JSON, or gzip-compressed JSON with
// "Content-Encoding: gzip" (a 100,000-recipient body of ~10 MB travels as ~1 MB). The limit (maxIssuanceBody)
// holds for the bytes sent and, separately, for the decompressed JSON, so a small compressed body cannot expand
// past it (413 COM006 either way). Any other Content-Encoding is 415 COM006. What the handler hashes and stores
// (body_sha256, the v2 request hash) is the decompressed JSON, so the same request sent compressed or not is one
// request to the idempotency rules.
func readIssuanceBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return readBody(w, r, maxIssuanceBody)
	case "gzip", "x-gzip":
	default:
		return nil, &apiError{status: http.StatusUnsupportedMediaType, code: codeValidation,
			msg:    "Content-Encoding must be gzip or absent",
			fields: []fieldError{{Field: "Content-Encoding", Message: "must be gzip or absent, got " + safeHeaderValue(enc)}}}
	}
	compressed, err := readBody(w, r, maxIssuanceBody)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, newError(codeFormat, "request body is not valid gzip: %s", err)
	}
	var out bytes.Buffer
	n, err := out.ReadFrom(io.LimitReader(zr, maxIssuanceBody+1))
	if err == nil && n > maxIssuanceBody {
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, code: codeValidation,
			msg: fmt.Sprintf("request body is larger than %d bytes once decompressed", maxIssuanceBody)}
	}
	if err == nil {
		err = zr.Close()
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, newError(codeFormat, "request body is not valid gzip: truncated")
		}
		return nil, newError(codeFormat, "request body is not valid gzip: %s", err)
	}
	return out.Bytes(), nil
}

// safeHeaderValue shortens a header value for an error message.
func safeHeaderValue(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}
