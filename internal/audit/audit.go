// Package audit writes the organization's audit trail (table audit_events, append-only by a trigger): who did what
// to which thing, when and from which address. The console and badged admin both write through it, so every key
// creation and revocation is in the trail whichever way it was made.
package audit

import (
	"context"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// The actions the trail names. They are stable strings: the console shows them and operators may grep for them.
const (
	KeyCreate       = "key.create"
	KeyRevoke       = "key.revoke"
	MemberAdd       = "member.add"
	MemberRole      = "member.role"
	MemberRemove    = "member.remove"
	IssuanceRedrive = "issuance.redrive"
	AssertionCancel = "assertion.cancel"
	AssertionRenew  = "assertion.reissue"
	OrgCreate       = "org.create"
	CreditsGrant    = "credits.grant"
)

// AdminActor is the actor of what badged admin did (it has no person: whoever holds the database runs it).
const AdminActor = "badged admin"

// Event is one row of the trail. Person is nil for badged admin; Addr is the client's address ("" for admin).
type Event struct {
	Org    uuid.UUID
	Person *uuid.UUID
	Actor  string
	Action string
	Target string
	Detail string
	Addr   string
}

// Appender is the one query the trail needs; *db.DB and *db.Queries (inside a transaction) both have it, so an
// action and its row commit together.
type Appender interface {
	AppendAudit(ctx context.Context, arg db.AppendAuditParams) error
}

// Append writes e.
func Append(ctx context.Context, q Appender, e Event) error {
	return q.AppendAudit(ctx, db.AppendAuditParams{OrgID: e.Org, PersonID: e.Person, Actor: e.Actor, Action: e.Action,
		Target: e.Target, Detail: e.Detail, ClientAddr: e.Addr})
}
