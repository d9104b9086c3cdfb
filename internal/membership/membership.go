// Package membership changes who belongs to an organization and with which role, under the one rule the console
// and badged admin share: an organization always keeps an owner. Each change writes its audit row in the same
// transaction, so the trail cannot miss a change that happened.
package membership

import (
	"context"
	"errors"
	"net/mail"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/audit"
)

var (
	// ErrLastOwner: the change would leave the organization without an owner.
	ErrLastOwner = errors.New("the last owner of an organization can be neither removed nor demoted")
	// ErrNotMember: the person is not a member of the organization (or the organization does not exist).
	ErrNotMember = errors.New("no such member")
	// ErrBadEmail: not a plain e-mail address.
	ErrBadEmail = errors.New("an e-mail address such as name@example.org is needed")
	// ErrBadRole: not ORG_VIEWER, ORG_MANAGER or ORG_OWNER.
	ErrBadRole = errors.New("the role must be ORG_VIEWER, ORG_MANAGER or ORG_OWNER")
)

// Email returns the plain, lower-case form of an address, or ErrBadEmail: one address, no display name.
func Email(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || len(s) > 254 || !strings.Contains(s, "@") {
		return "", ErrBadEmail
	}
	return strings.ToLower(s), nil
}

// Add makes the person of email a member of org with role (a person already a member keeps their role), and
// writes by's audit row. It returns the person's id and the role they hold.
func Add(ctx context.Context, d *db.DB, org uuid.UUID, email, role string, by audit.Event) (uuid.UUID, string, error) {
	email, err := Email(email)
	if err != nil {
		return uuid.Nil, "", err
	}
	if !apikey.ValidRole(role) {
		return uuid.Nil, "", ErrBadRole
	}
	var m db.Membership
	err = d.InTx(ctx, func(q *db.Queries) error {
		p, err := q.UpsertPerson(ctx, db.UpsertPersonParams{ID: uuid.New(), Email: email})
		if err != nil {
			return err
		}
		if m, err = q.AddMembership(ctx, db.AddMembershipParams{OrgID: org, PersonID: p.ID, Role: role}); err != nil {
			return err
		}
		by.Org, by.Action, by.Target, by.Detail = org, audit.MemberAdd, email, m.Role
		return audit.Append(ctx, q, by)
	})
	return m.PersonID, m.Role, err
}

// SetRole gives person the role in org, unless that demotes the last owner.
func SetRole(ctx context.Context, d *db.DB, org, person uuid.UUID, role string, by audit.Event) error {
	if !apikey.ValidRole(role) {
		return ErrBadRole
	}
	return d.InTx(ctx, func(q *db.Queries) error {
		m, err := lockedMember(ctx, q, org, person)
		if err != nil {
			return err
		}
		if m.Role == apikey.RoleOwner && role != apikey.RoleOwner {
			if err := keepOwner(ctx, q, org); err != nil {
				return err
			}
		}
		if _, err := q.SetMemberRole(ctx, db.SetMemberRoleParams{OrgID: org, PersonID: person, Role: role}); err != nil {
			return err
		}
		by.Org, by.Action, by.Target, by.Detail = org, audit.MemberRole, person.String(), m.Role+" -> "+role
		return audit.Append(ctx, q, by)
	})
}

// Remove ends person's membership of org, unless they are its last owner.
func Remove(ctx context.Context, d *db.DB, org, person uuid.UUID, by audit.Event) error {
	return d.InTx(ctx, func(q *db.Queries) error {
		m, err := lockedMember(ctx, q, org, person)
		if err != nil {
			return err
		}
		if m.Role == apikey.RoleOwner {
			if err := keepOwner(ctx, q, org); err != nil {
				return err
			}
		}
		if _, err := q.RemoveMember(ctx, db.RemoveMemberParams{OrgID: org, PersonID: person}); err != nil {
			return err
		}
		by.Org, by.Action, by.Target, by.Detail = org, audit.MemberRemove, person.String(), m.Role
		return audit.Append(ctx, q, by)
	})
}

// lockedMember takes the organization's member lock (held to the end of the transaction) and reads the membership.
func lockedMember(ctx context.Context, q *db.Queries, org, person uuid.UUID) (db.Membership, error) {
	if err := q.LockOrgMembers(ctx, org); err != nil {
		return db.Membership{}, err
	}
	m, err := q.GetMembership(ctx, db.GetMembershipParams{OrgID: org, PersonID: person})
	if db.IsNotFound(err) {
		return m, ErrNotMember
	}
	return m, err
}

// keepOwner refuses when the organization has one owner left (the one about to go).
func keepOwner(ctx context.Context, q *db.Queries, org uuid.UUID) error {
	n, err := q.CountOwners(ctx, org)
	if err != nil {
		return err
	}
	if n <= 1 {
		return ErrLastOwner
	}
	return nil
}
