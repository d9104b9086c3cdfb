package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
	rcpt "github.com/badged/badged/internal/recipient"
)

// dryRunResponse is data of POST …/issuances?dryRun=true: what the same request would issue now, and every reason
// it would not. Nothing is written: no issuance, no assertion, no debit, no workflow, and the Idempotency-Key
// stays unused.
type dryRunResponse struct {
	// WouldSucceed is true when the real request would be accepted (200): Problems holds no request-level entry.
	// Recipient-level entries (recipientIndex set) do not stop the request; that recipient would end FAILED.
	WouldSucceed bool `json:"wouldSucceed"`
	// ReplayOf is the issuance the key already names when the request is its replay: the real request would
	// return it and issue nothing new (creditsRequired 0).
	ReplayOf         *string           `json:"replayOf"`
	BadgeID          string            `json:"badgeId"`
	ProgramID        string            `json:"programId"`
	RecipientCount   int               `json:"recipientCount"`
	CreditsRequired  int               `json:"creditsRequired"`
	CreditsAvailable int64             `json:"creditsAvailable"`
	IssuedAt         any               `json:"issuedAt,omitempty"` // v3 only, as on assertions
	ExpiredAt        *string           `json:"expiredAt"`
	Recipients       []dryRunRecipient `json:"recipients"`
	Problems         []dryRunProblem   `json:"problems"`
}

// dryRunRecipient is one recipient as it would be stored (normalized), without the serial number a real request
// reserves, and the assertion errorCode the pipeline's check step would give it (null: none).
type dryRunRecipient struct {
	recipientResponse
	ErrorCode *string `json:"errorCode"`
}

// dryRunProblem is one reason against the request: a contract error code with the HTTP status the real request
// would answer (request level), or an assertion errorCode with the recipient it concerns (recipient level).
type dryRunProblem struct {
	Code           string `json:"code"`
	Status         int    `json:"status,omitempty"`
	Message        string `json:"message"`
	Field          string `json:"field,omitempty"`
	RecipientIndex *int   `json:"recipientIndex,omitempty"`
}

// dryRunRequest reads a dry run's request as the real request would, but reports each shape problem (of the
// Idempotency-Key, every field, issuedAt) as a problem with its own code instead of answering the first error, and
// goes on to check the stored data with what could be read. A body that is not a JSON object, one over the size
// limit, a malformed dryRun and an unknown badge are still answered as errors: nothing could be checked.
func (h *handler) dryRunRequest(w http.ResponseWriter, r *http.Request, sc scope, badgeID uuid.UUID, key string, keyErr error,
	body []byte, now time.Time) error {
	v := versionOf(r.Context())
	o, err := h.parseBody(r, body)
	if err != nil {
		return err
	}
	shape := shapeProblems(keyErr, headerIdempotency)
	req := readIssuanceRequest(o, v)
	shape = append(shape, shapeProblems(o.err(), "")...)
	req.raw = o.body
	issuedAt, err := readIssuedAt(o, v, now)
	shape = append(shape, shapeProblems(err, "issuedAt")...)
	req.IssuedAt = issuedAt
	if len(shape) > 0 {
		return h.dryRunIssuance(w, r, sc, badgeID, req, nil, nil, now, shape)
	}
	hash, err := req.requestHash(v)
	if err != nil {
		return err
	}
	prev, found, err := h.issuanceByKey(r.Context(), sc, badgeID, key)
	if err != nil {
		return err
	}
	var stored *db.Issuance
	if found {
		stored = &prev
	}
	return h.dryRunIssuance(w, r, sc, badgeID, req, hash, stored, now, nil)
}

// shapeProblems turns an error of the request's shape into one problem per field, each with its code: COM002 for
// a value of the wrong type or format, COM006 for a rule it breaks, or the error's own code (ISS056, ISS058,
// ISS059). field names the problem when the error names none.
func shapeProblems(err error, field string) []dryRunProblem {
	var ae *apiError
	if !errors.As(err, &ae) {
		return nil
	}
	if len(ae.fields) == 0 {
		return []dryRunProblem{{Code: ae.code, Status: ae.status, Message: ae.msg, Field: field}}
	}
	out := make([]dryRunProblem, 0, len(ae.fields))
	for _, f := range ae.fields {
		code := ae.code
		if code == codeFormat || code == codeValidation {
			code = codeValidation
			if f.format {
				code = codeFormat
			}
		}
		out = append(out, dryRunProblem{Code: code, Status: statusOf(code), Message: f.Message, Field: f.Field})
	}
	return out
}

// dryRunIssuance answers what the real request would do against the stored state of now, read in one read-only
// snapshot. stored is the issuance the key already names, if any. shape lists the problems of the request's shape:
// with any, the recipients are not previewed (their stored form is unknown) and the key is not looked up, but the
// badge, the program (when programId could be read), the credits and the expiry are still checked.
func (h *handler) dryRunIssuance(w http.ResponseWriter, r *http.Request, sc scope, badgeID uuid.UUID, req issuanceRequest,
	hash []byte, stored *db.Issuance, now time.Time, shape []dryRunProblem) error {
	ctx, v := r.Context(), versionOf(r.Context())
	setLogAttrs(ctx, "dryRun", true)
	out := dryRunResponse{BadgeID: badgeID.String(), ProgramID: req.ProgramID.String(), RecipientCount: len(req.Recipients)}
	if len(shape) == 0 {
		out.Recipients, out.Problems = previewRecipients(v, req.Recipients)
	} else {
		out.Recipients, out.Problems = []dryRunRecipient{}, shape
	}
	err := h.db.InReadOnlyTx(ctx, func(q *db.Queries) error {
		org, err := q.GetOrganization(ctx, sc.Org)
		if err != nil {
			return err
		}
		out.CreditsAvailable = org.Credits
		if stored != nil {
			// The real request is a replay (same hash) or ISS057 before any other check; a replay issues nothing.
			var conflict *apiError
			if errors.As(sameRequest(*stored, hash), &conflict) {
				out.Problems = append(out.Problems, requestProblem(conflict, headerIdempotency))
				return nil
			}
			id := stored.ID.String()
			out.ReplayOf, out.ProgramID, out.RecipientCount = &id, stored.ProgramID.String(), int(stored.AssertionCount)
			out.ExpiredAt = v.formatTimePtr(stored.ExpiredAt, h.loc)
			if v == v3 {
				out.IssuedAt = v.formatTime(stored.IssuedAt, h.loc)
			}
			return nil
		}
		plan, problems, err := h.checkIssuance(ctx, q, sc, v, badgeID, req, now)
		if err != nil {
			return err
		}
		for _, ae := range problems {
			out.Problems = append(out.Problems, requestProblem(ae, ""))
		}
		out.ExpiredAt = v.formatTimePtr(plan.expiredAt, h.loc)
		if v == v3 && len(shape) == 0 {
			out.IssuedAt = v.formatTime(plan.issuedAt, h.loc)
		}
		out.CreditsRequired = creditDebit(sc.Mode, len(req.Recipients))
		if int64(out.CreditsRequired) > org.Credits {
			out.Problems = append(out.Problems, requestProblem(newError(codeNoCredits,
				"the organization has %d issuance credits; the %d recipients need %d", org.Credits, len(req.Recipients), out.CreditsRequired), ""))
		}
		return nil
	})
	if err != nil {
		return err
	}
	out.WouldSucceed = true
	for _, pr := range out.Problems {
		if pr.RecipientIndex == nil {
			out.WouldSucceed = false
		}
	}
	h.ok(w, out)
	return nil
}

// requestProblem turns an error the real request would answer into a problem entry: its code, status, message
// and first field (field names it when the error itself names none).
func requestProblem(ae *apiError, field string) dryRunProblem {
	if len(ae.fields) > 0 {
		field = ae.fields[0].Field
	}
	return dryRunProblem{Code: ae.code, Status: ae.status, Message: ae.msg, Field: field}
}

// previewRecipients lists the recipients as they would be stored, each with the errorCode of the check step's
// recipient rules (internal/recipient), and a problem for each such recipient: an incomplete recipient, or a later
// copy of an identity given earlier in the same request (DUPLICATE_ISSUANCE; the lower index wins, as in the
// pipeline). Duplicates of assertions already issued are decided by the pipeline under its locks and are not
// predicted here.
func previewRecipients(v version, rs []recipient) ([]dryRunRecipient, []dryRunProblem) {
	out, problems := make([]dryRunRecipient, len(rs)), []dryRunProblem{}
	first := make(map[string]int, len(rs))
	for i, rc := range rs {
		out[i].recipientResponse = recipientResponse{Name: rc.Name, Email: rc.Email, PhoneNumber: rc.PhoneNumber,
			ReceiveType: rc.ReceiveType}
		if v == v3 {
			out[i].SourcedID = rc.SourcedID
		}
		var code errcode.Code
		var why string
		if e := rcpt.Incomplete(rc.Name, rc.ReceiveType, rc.Email, rc.PhoneNumber, rc.SourcedID); e != nil {
			code, why = e.Code, e.Msg
		} else if j, dup := first[rcpt.Identity(rc.Email, rc.PhoneNumber, rc.SourcedID)]; dup {
			code, why = errcode.DuplicateIssuance, fmt.Sprintf("the same recipient is recipients[%d]", j)
		} else {
			first[rcpt.Identity(rc.Email, rc.PhoneNumber, rc.SourcedID)] = i
			continue
		}
		c := string(code)
		out[i].ErrorCode = &c
		problems = append(problems, dryRunProblem{Code: c, RecipientIndex: &i,
			Message: "the request would be accepted, but this recipient would end FAILED: " + why})
	}
	return out, problems
}
