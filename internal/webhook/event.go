package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// Event types. An endpoint subscribes to a list of them, or to all when its list is empty.
const (
	IssuanceCompleted = "issuance.completed"
	IssuanceFailed    = "issuance.failed"
	AssertionRevoked  = "assertion.revoked"
	AssertionReissued = "assertion.reissued"
	AssertionRenewed  = "assertion.renewed" // the original of a renewal, once its replacement is issued
	AssertionExpired  = "assertion.expired" // recorded by the expiry job's SQL (db/queries/pipeline.sql)
	// AssertionExpiring is an expiry reminder claimed (db/queries/reminders.sql): its data adds daysBefore and
	// expiredAt.
	AssertionExpiring = "assertion.expiring"
	AssertionClaimed  = "assertion.claimed" // a wallet took a copy (wallet/credential.go, wallet/exchange.go)
)

// Types lists every event type.
var Types = []string{IssuanceCompleted, IssuanceFailed, AssertionRevoked, AssertionReissued, AssertionExpired,
	AssertionExpiring, AssertionClaimed, AssertionRenewed}

// ValidType reports whether t is an event type.
func ValidType(t string) bool { return slices.Contains(Types, t) }

// NewEventID returns a fresh event id, "evt_" + a UUID: the webhook-id of every delivery of the event.
func NewEventID() string { return "evt_" + uuid.NewString() }

// Event is a change to record in the outbox.
type Event struct {
	OrgID uuid.UUID
	Type  string
	Data  any // IssuanceData or AssertionData
}

// IssuanceData is the data of issuance.completed and issuance.failed.
type IssuanceData struct {
	IssuanceID        uuid.UUID      `json:"issuanceId"`
	BadgeID           uuid.UUID      `json:"badgeId"`
	ProgramID         uuid.UUID      `json:"programId"`
	ProcessingStatus  string         `json:"processingStatus"`
	AssertionCount    int            `json:"assertionCount"`
	Mode              string         `json:"mode"` // live or test: test issuances send events too
	CountsByState     map[string]int `json:"countsByState"`
	CountsByErrorCode map[string]int `json:"countsByErrorCode"`
}

// AssertionData is the data of the assertion.* events. Its keys are also written by the expiry job's SQL.
type AssertionData struct {
	AssertionID uuid.UUID `json:"assertionId"`
	IssuanceID  uuid.UUID `json:"issuanceId"`
	BadgeID     uuid.UUID `json:"badgeId"`
	ProgramID   uuid.UUID `json:"programId"`
	StateCode   string    `json:"stateCode"`
	ErrorCode   *string   `json:"errorCode"`
	Mode        string    `json:"mode"`
	// Claimed is the wallet copy of assertion.claimed.
	Claimed *ClaimedCopy `json:"claimed,omitempty"`
	// ReissuedAs is the new assertion of assertion.reissued (the event's assertion is the replaced original).
	ReissuedAs *uuid.UUID `json:"reissuedAs,omitempty"`
	// DaysBefore and ExpiredAt are those of assertion.expiring: the reminder and the expiry it is about.
	DaysBefore *int32  `json:"daysBefore,omitempty"`
	ExpiredAt  *string `json:"expiredAt,omitempty"`
	// RenewedAs is the new assertion of assertion.renewed (the event's assertion is the renewed original).
	RenewedAs *uuid.UUID `json:"renewedAs,omitempty"`
}

// NewAssertionData is the data of an assertion event about a.
func NewAssertionData(a db.Assertion) AssertionData {
	return AssertionData{AssertionID: a.ID, IssuanceID: a.IssuanceID, BadgeID: a.BadgeID, ProgramID: a.ProgramID,
		StateCode: a.State, ErrorCode: a.ErrorCode, Mode: a.Mode}
}

// Record writes ev to the outbox with q, which must be the transaction of the change it describes: the event then
// exists if and only if the change committed. Nothing is written when no enabled endpoint of the organization
// subscribes to the type. It returns the event id, or "" when nothing was written.
func Record(ctx context.Context, q *db.Queries, ev Event) (string, error) {
	if !ValidType(ev.Type) {
		return "", fmt.Errorf("record webhook event: unknown type %q", ev.Type)
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return "", fmt.Errorf("record webhook event: %w", err)
	}
	id := NewEventID()
	n, err := q.CreateWebhookEvent(ctx, db.CreateWebhookEventParams{ID: id, OrgID: ev.OrgID, Type: ev.Type, Data: data})
	if err != nil {
		return "", fmt.Errorf("record webhook event %s: %w", ev.Type, err)
	}
	if n == 0 {
		return "", nil
	}
	return id, nil
}

// RecordAssertionRevoked records assertion.revoked for a, as it is after the revocation, in the caller's transaction.
func RecordAssertionRevoked(ctx context.Context, q *db.Queries, a db.Assertion) error {
	_, err := Record(ctx, q, Event{OrgID: a.OrgID, Type: AssertionRevoked, Data: NewAssertionData(a)})
	return err
}

// RecordAssertionReissued records assertion.reissued in the caller's transaction (the one that moved original to
// REISSUED and created replacement): the data is the original as it is now, with reissuedAs the replacement's id.
func RecordAssertionReissued(ctx context.Context, q *db.Queries, original db.Assertion, replacement uuid.UUID) error {
	d := NewAssertionData(original)
	d.ReissuedAs = &replacement
	_, err := Record(ctx, q, Event{OrgID: original.OrgID, Type: AssertionReissued, Data: d})
	return err
}

// RecordAssertionRenewed records assertion.renewed in the caller's transaction (the one that moved original to
// REISSUED once its renewal was issued): the data is the original as it is now, with renewedAs the replacement's id.
func RecordAssertionRenewed(ctx context.Context, q *db.Queries, original db.Assertion, replacement uuid.UUID) error {
	d := NewAssertionData(original)
	d.RenewedAs = &replacement
	_, err := Record(ctx, q, Event{OrgID: original.OrgID, Type: AssertionRenewed, Data: d})
	return err
}

// RecordIssuanceClosed records issuance.completed or issuance.failed for iss, as it is after closing, with its
// recipients counted by state and errorCode, in the caller's transaction. Organizations without a subscriber cost
// one indexed lookup, not the count.
func RecordIssuanceClosed(ctx context.Context, q *db.Queries, iss db.Issuance) error {
	typ := IssuanceCompleted
	if iss.ProcessingStatus == string(db.IssuanceFailed) {
		typ = IssuanceFailed
	}
	ok, err := q.HasWebhookSubscriber(ctx, db.HasWebhookSubscriberParams{OrgID: iss.OrgID, Type: typ})
	if err != nil || !ok {
		return err
	}
	rows, err := q.CountIssuanceOutcomes(ctx, iss.ID)
	if err != nil {
		return err
	}
	d := IssuanceData{IssuanceID: iss.ID, BadgeID: iss.BadgeID, ProgramID: iss.ProgramID, ProcessingStatus: iss.ProcessingStatus,
		AssertionCount: int(iss.AssertionCount), Mode: iss.Mode, CountsByState: map[string]int{}, CountsByErrorCode: map[string]int{}}
	for _, r := range rows {
		d.CountsByState[r.State] += int(r.N)
		if r.ErrorCode != "" {
			d.CountsByErrorCode[r.ErrorCode] += int(r.N)
		}
	}
	_, err = Record(ctx, q, Event{OrgID: iss.OrgID, Type: typ, Data: d})
	return err
}

// Payload is the body of every delivery (Standard Webhooks: type, timestamp, data; plus the id).
type Payload struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"` // when the change committed, UTC
	Data      json.RawMessage `json:"data"`
}

// Body is the exact bytes sent for an outbox event; the same event always gives the same bytes.
func Body(id, typ string, createdAt time.Time, data json.RawMessage) ([]byte, error) {
	return json.Marshal(Payload{ID: id, Type: typ, Timestamp: createdAt.UTC().Format(time.RFC3339Nano), Data: data})
}

// ClaimedCopy describes the wallet copy an assertion.claimed event announces.
type ClaimedCopy struct {
	CredentialID string    `json:"credentialId"`
	Format       string    `json:"format"`
	HolderDID    string    `json:"holderDid"`
	ClaimedAt    time.Time `json:"claimedAt"`
}

// RecordAssertionClaimed records assertion.claimed in the transaction that stored the wallet copy.
func RecordAssertionClaimed(ctx context.Context, q *db.Queries, org uuid.UUID, a AssertionData, c ClaimedCopy) error {
	a.Claimed = &c
	_, err := Record(ctx, q, Event{OrgID: org, Type: AssertionClaimed, Data: a})
	return err
}
