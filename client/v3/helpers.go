package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strconv"
	"strings"
	"time"
)

// APIError is an answer of the service that is not a success: the contract's error body ({success: false, error})
// with the HTTP status and the X-Request-Id to quote. Branch on Code, never on Message.
type APIError struct {
	StatusCode int
	Code       string // the contract's error code: "ISS057", "TOO_MANY_REQUESTS", ...
	Message    string
	Path       string
	Fields     []FieldError // which fields were wrong, when the code is about the request
	RequestID  string
	RetryAfter time.Duration // from Retry-After, on 429
}

// FieldError is one field problem of an APIError.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("badged: %d %s: %s", e.StatusCode, e.Code, e.Message)
}

// CheckResponse returns nil for a 2xx answer and an *APIError for any other; body is the answer's bytes (the
// Body field of every generated XxxResponse). An answer that is not the contract's error body still gives an
// APIError, with its status and the start of the body as message.
func CheckResponse(res *http.Response, body []byte) error {
	if res == nil {
		return errors.New("badged: no HTTP response")
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return nil
	}
	e := &APIError{StatusCode: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	if secs, err := strconv.Atoi(strings.TrimSpace(res.Header.Get("Retry-After"))); err == nil && secs >= 0 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	var env struct {
		Error struct {
			Code    string       `json:"code"`
			Message string       `json:"message"`
			Path    string       `json:"path"`
			Errors  []FieldError `json:"errors"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err == nil && env.Error.Code != "" {
		e.Code, e.Message, e.Path, e.Fields = env.Error.Code, env.Error.Message, env.Error.Path, env.Error.Errors
		return e
	}
	e.Code, e.Message = http.StatusText(res.StatusCode), string(body[:min(len(body), 200)])
	return e
}

// UploadImage uploads an image (PNG, JPEG, GIF, WebP or SVG) as the multipart part "image" and returns the
// stored image, whose Id is the imageId of programs and badges. filename's extension only names the part.
func (c *ClientWithResponses) UploadImage(ctx context.Context, filename string, image io.Reader, reqEditors ...RequestEditorFn) (*Image, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="image"; filename=%q`, path.Base(filename)))
	h.Set("Content-Type", "application/octet-stream")
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(part, image); err != nil {
		return nil, fmt.Errorf("badged: read image: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	res, err := c.UploadImageWithBodyWithResponse(ctx, w.FormDataContentType(), &body, reqEditors...)
	if err != nil {
		return nil, err
	}
	if err := CheckResponse(res.HTTPResponse, res.Body); err != nil {
		return nil, err
	}
	return &res.JSON200.Data, nil
}

// IssuanceOrDryRun is the answer of POST /badges/{badgeId}/issuances: exactly one of Issuance (a real request)
// and DryRun (dryRun=true) is set. The generated CreateIssuanceResponse's union decodes either body as either
// type; this one is decided by what was asked and checked against what came back.
type IssuanceOrDryRun struct {
	Issuance *Issuance
	DryRun   *DryRun
}

// Result decides the answer of a CreateIssuance call: an *APIError when it is not a success, else the issuance
// or the dry run, whichever the body is (a dry run's data has wouldSucceed, an issuance's processingStatus).
func (r *CreateIssuanceResponse) Result() (IssuanceOrDryRun, error) {
	if err := CheckResponse(r.HTTPResponse, r.Body); err != nil {
		return IssuanceOrDryRun{}, err
	}
	var probe struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &probe); err != nil {
		return IssuanceOrDryRun{}, fmt.Errorf("badged: decode issuance answer: %w", err)
	}
	_, dry := probe.Data["wouldSucceed"]
	_, real := probe.Data["processingStatus"]
	switch {
	case dry && !real:
		var out DryRunResponse
		if err := json.Unmarshal(r.Body, &out); err != nil {
			return IssuanceOrDryRun{}, fmt.Errorf("badged: decode dry run: %w", err)
		}
		return IssuanceOrDryRun{DryRun: &out.Data}, nil
	case real && !dry:
		var out IssuanceResponse
		if err := json.Unmarshal(r.Body, &out); err != nil {
			return IssuanceOrDryRun{}, fmt.Errorf("badged: decode issuance: %w", err)
		}
		return IssuanceOrDryRun{Issuance: &out.Data}, nil
	}
	return IssuanceOrDryRun{}, fmt.Errorf("badged: the answer is neither an issuance nor a dry run: %.200s", r.Body)
}

// IssueBadge issues badgeID to the request's recipients under idempotencyKey (asynchronous: wait with
// WaitIssuance). A replay of the same request returns the same issuance; another request under the key is an
// *APIError with Code "ISS057".
func (c *ClientWithResponses) IssueBadge(ctx context.Context, badgeID UUID, idempotencyKey string, req IssuanceRequest, reqEditors ...RequestEditorFn) (*Issuance, error) {
	res, err := c.CreateIssuanceWithResponse(ctx, badgeID, &CreateIssuanceParams{IdempotencyKey: idempotencyKey}, req, reqEditors...)
	if err != nil {
		return nil, err
	}
	out, err := res.Result()
	if err != nil {
		return nil, err
	}
	if out.Issuance == nil {
		return nil, errors.New("badged: a real issuance request was answered with a dry run")
	}
	return out.Issuance, nil
}

// DryRunIssuance asks what IssueBadge would do now, writing nothing and leaving the key unused: the recipients
// as they would be stored, the credits, and every problem with its code (shape and stored data alike).
func (c *ClientWithResponses) DryRunIssuance(ctx context.Context, badgeID UUID, idempotencyKey string, req IssuanceRequest, reqEditors ...RequestEditorFn) (*DryRun, error) {
	dry := true
	res, err := c.CreateIssuanceWithResponse(ctx, badgeID, &CreateIssuanceParams{IdempotencyKey: idempotencyKey, DryRun: &dry}, req, reqEditors...)
	if err != nil {
		return nil, err
	}
	out, err := res.Result()
	if err != nil {
		return nil, err
	}
	if out.DryRun == nil {
		return nil, errors.New("badged: a dry run was answered with an issuance")
	}
	return out.DryRun, nil
}

// WaitOptions tune WaitIssuance. The zero value polls every second.
type WaitOptions struct {
	// Interval between polls while the issuance is PROCESSING; default 1 s. A 429 waits its Retry-After instead.
	Interval time.Duration
	// Sleep waits d or until ctx ends; nil is a timer. Tests replace it to observe the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// WaitIssuance polls GET /issuances/{id} until processingStatus is no longer PROCESSING and returns the issuance
// (COMPLETED or FAILED). A 429 answer is waited out for its Retry-After seconds, then the poll goes on; any other
// error answer ends the wait as an *APIError. Bound the wait with ctx.
func (c *ClientWithResponses) WaitIssuance(ctx context.Context, id UUID, opts WaitOptions, reqEditors ...RequestEditorFn) (*Issuance, error) {
	interval := opts.Interval
	if interval <= 0 {
		interval = time.Second
	}
	sleep := opts.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for {
		res, err := c.GetIssuanceWithResponse(ctx, id, reqEditors...)
		if err != nil {
			return nil, err
		}
		wait := interval
		if err := CheckResponse(res.HTTPResponse, res.Body); err != nil {
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests {
				return nil, err
			}
			wait = max(ae.RetryAfter, time.Second)
		} else if res.JSON200.Data.ProcessingStatus != IssuanceProcessingStatusPROCESSING {
			return &res.JSON200.Data, nil
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
