package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/membership"
)

// adminEvent is the audit row of what badged admin does to org: no person, no client address.
func adminEvent(org uuid.UUID) audit.Event { return audit.Event{Org: org, Actor: audit.AdminActor} }

type memberOut struct {
	OrgID    string `json:"orgId"`
	PersonID string `json:"personId"`
	Email    string `json:"email"`
	Role     string `json:"role"`
}

// adminAddMember is `admin member add --org ID --email ADDRESS --role R`: the person may then sign in to the
// console of the organization. A person already a member keeps the role they have (change it in the console).
func adminAddMember(ctx context.Context, d *db.DB, org, email, role string) (memberOut, error) {
	orgID, err := uuid.Parse(org)
	if err != nil {
		return memberOut{}, errors.New("member add: --org must be an organization id")
	}
	if _, err := d.GetOrganization(ctx, orgID); db.IsNotFound(err) {
		return memberOut{}, fmt.Errorf("member add: no organization %s", orgID)
	} else if err != nil {
		return memberOut{}, err
	}
	person, held, err := membership.Add(ctx, d, orgID, email, role, adminEvent(orgID))
	if err != nil {
		return memberOut{}, fmt.Errorf("member add: %w", err)
	}
	addr, _ := membership.Email(email)
	return memberOut{OrgID: orgID.String(), PersonID: person.String(), Email: addr, Role: held}, nil
}
