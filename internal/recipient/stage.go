package recipient

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// Staged recipients (migration 0015): an issuance of more than StageAbove recipients is accepted with its
// recipients in slices of StageSlice (issuance_recipient_slices) instead of one assertion row each, so the POST
// answers within seconds at 100,000 recipients; the batch's load step (activities.LoadBatch) writes a slice's assertions when its batch starts.
const (
	// StageAbove is the largest issuance whose assertions the POST writes itself: the old request limit, so every
	// request that limit allowed is recorded exactly as before.
	StageAbove = 10_000
	// StageSlice is the number of recipients per staged row: one batch of the workflow (workflows.BatchSize).
	StageSlice = 500
)

// Staged is one normalized recipient as the API validated it (README "Running at scale").
type Staged struct {
	Name        string  `json:"name"`
	Email       *string `json:"email"`
	PhoneNumber *string `json:"phoneNumber"`
	SourcedID   *string `json:"sourcedId"`
	ReceiveType string  `json:"receiveType"`
}

// Slices cuts an issuance's recipients into its staged rows; firstSerial is the serial of seq 0.
func Slices(issuance uuid.UUID, firstSerial int64, rs []Staged) ([]db.InsertRecipientSlicesParams, error) {
	out := make([]db.InsertRecipientSlicesParams, 0, (len(rs)+StageSlice-1)/StageSlice)
	for from := 0; from < len(rs); from += StageSlice {
		to := min(from+StageSlice, len(rs))
		data, err := json.Marshal(rs[from:to])
		if err != nil {
			return nil, fmt.Errorf("stage recipients: %w", err)
		}
		out = append(out, db.InsertRecipientSlicesParams{IssuanceID: issuance, FromSeq: int32(from), ToSeq: int32(to),
			FirstSerial: firstSerial, Recipients: data})
	}
	return out, nil
}
