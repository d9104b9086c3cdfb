package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/membership"
)

// runAdmin runs an operator command and prints its result as one JSON object on stdout, for scripts.
func runAdmin(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errUsage
	}
	switch args[0] { // these open their own connections (and Temporal)
	case "issuance":
		return adminIssuance(ctx, cfg, args[1:], stdout)
	case "notification":
		return adminNotification(ctx, cfg, args[1:], stdout)
	case "retry-policy":
		return adminRetryPolicy(args[1:], stdout)
	case "webhook":
		return adminWebhook(ctx, cfg, args[1:], stdout)
	case "reminders":
		return adminReminders(ctx, cfg, args[1:], stdout)
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	fs := flag.NewFlagSet("admin "+args[0]+" "+args[1], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var out any
	switch args[0] + " " + args[1] {
	case "org create":
		name := fs.String("name", "", "organization name")
		credits := fs.Int64("credits", 0, "initial issuance credits")
		owner := fs.String("owner-email", "", "the first owner's e-mail address (signs in to the console)")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminCreateOrg(ctx, d, *name, *credits, *owner)
	case "member add":
		org := fs.String("org", "", "organization id")
		email := fs.String("email", "", "the member's e-mail address")
		role := fs.String("role", "", "ORG_VIEWER, ORG_MANAGER or ORG_OWNER")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminAddMember(ctx, d, *org, *email, *role)
	case "org update":
		var in orgUpdate
		fs.StringVar(&in.id, "id", "", "organization id")
		fs.Func("name", "new name", func(v string) error { in.name = &v; return nil })
		fs.Func("url", "website URL (http or https; empty clears it)", func(v string) error { in.url = &v; return nil })
		fs.Func("logo-media", "media id of an uploaded image of the organization", func(v string) error { in.logo = &v; return nil })
		fs.Func("wallet-offers", "on or off: issue notices carry a wallet offer", func(v string) error {
			b, err := onOff(v)
			in.walletOffers = &b
			return err
		})
		fs.Func("renewal-url", "where expiry reminders send a recipient to ask for a renewal (https; {assertionId} is replaced; empty: no renewal link)",
			func(v string) error { in.renewal = &v; return nil })
		fs.Func("description", "a few lines about the organization, shown on its public page (at most 2000 characters; empty clears it)",
			func(v string) error { in.description = &v; return nil })
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminUpdateOrg(ctx, d, in)
	case "key create":
		org := fs.String("org", "", "organization id")
		role := fs.String("role", "", "ORG_VIEWER, ORG_MANAGER or ORG_OWNER")
		mode := fs.String("mode", apikey.ModeLive, "live or test")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminCreateKey(ctx, d, *org, *role, *mode)
	case "key revoke":
		id := fs.String("id", "", "key id")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminRevokeKey(ctx, d, *id)
	case "assertion copies":
		id := fs.String("id", "", "assertion id")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminAssertionCopies(ctx, d, cfg.PublicBaseURL, *id)
	case "keyring rewrap":
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminKeyringRewrap(ctx, cfg, d)
	case "log backfill":
		org := fs.String("org", "", "organization id (default: every organization with live credentials)")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminLogBackfill(ctx, cfg, d, *org)
	case "credits grant":
		org := fs.String("org", "", "organization id")
		amount := fs.Int64("amount", 0, "credits to add (positive)")
		if err := parseFlags(fs, args[2:]); err != nil {
			return err
		}
		out, err = adminGrantCredits(ctx, d, *org, *amount)
	default:
		return errUsage
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	return enc.Encode(out)
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

type orgOut struct {
	ID      string     `json:"id"`
	Name    string     `json:"name"`
	Credits int64      `json:"credits"`
	Owner   *memberOut `json:"owner,omitempty"` // org create --owner-email
}

// adminCreateOrg makes an organization, with its first console owner when ownerEmail is given.
func adminCreateOrg(ctx context.Context, d *db.DB, name string, credits int64, ownerEmail string) (orgOut, error) {
	name, err := orgName("org create", name)
	if err != nil {
		return orgOut{}, err
	}
	if credits < 0 {
		return orgOut{}, errors.New("org create: --credits must not be negative")
	}
	if ownerEmail != "" {
		if _, err := membership.Email(ownerEmail); err != nil {
			return orgOut{}, fmt.Errorf("org create: --owner-email: %w", err)
		}
	}
	actor := audit.AdminActor // the ledger's opening row names who gave the credits
	o, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: name, Credits: credits,
		Actor: &actor})
	if err != nil {
		return orgOut{}, fmt.Errorf("create organization: %w", err)
	}
	out := orgOut{ID: o.ID.String(), Name: o.Name, Credits: o.Credits}
	if err := audit.Append(ctx, d, audit.Event{Org: o.ID, Actor: audit.AdminActor, Action: audit.OrgCreate,
		Target: o.ID.String(), Detail: fmt.Sprintf("credits %d", credits)}); err != nil {
		return out, err
	}
	if ownerEmail != "" {
		m, err := adminAddMember(ctx, d, o.ID.String(), ownerEmail, apikey.RoleOwner)
		if err != nil {
			return out, fmt.Errorf("org create: organization %s made, its owner not: %w", o.ID, err)
		}
		out.Owner = &m
	}
	return out, nil
}

type keyOut struct {
	Key   string `json:"key,omitempty"`
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	Role  string `json:"role"`
	Mode  string `json:"mode"`
}

func adminCreateKey(ctx context.Context, d *db.DB, org, role, mode string) (keyOut, error) {
	orgID, err := uuid.Parse(org)
	if err != nil {
		return keyOut{}, errors.New("key create: --org must be an organization id")
	}
	if !apikey.ValidRole(role) {
		return keyOut{}, fmt.Errorf("key create: --role %q must be ORG_VIEWER, ORG_MANAGER or ORG_OWNER", role)
	}
	if !apikey.ValidMode(mode) {
		return keyOut{}, fmt.Errorf("key create: --mode %q must be live or test", mode)
	}
	if _, err := d.GetOrganization(ctx, orgID); err != nil {
		if db.IsNotFound(err) {
			return keyOut{}, fmt.Errorf("key create: no organization %s", orgID)
		}
		return keyOut{}, err
	}
	id := uuid.New()
	key, hash, err := apikey.New(id, mode)
	if err != nil {
		return keyOut{}, fmt.Errorf("make key: %w", err)
	}
	var k db.ApiKey
	err = d.InTx(ctx, func(q *db.Queries) error {
		var err error
		if k, err = q.CreateAPIKey(ctx, db.CreateAPIKeyParams{ID: id, OrgID: orgID, KeyHash: hash, Role: role, Mode: mode}); err != nil {
			return err
		}
		e := adminEvent(orgID)
		e.Action, e.Target, e.Detail = audit.KeyCreate, id.String(), role+" "+mode
		return audit.Append(ctx, q, e)
	})
	if err != nil {
		return keyOut{}, fmt.Errorf("store key: %w", err)
	}
	return keyOut{Key: key, ID: k.ID.String(), OrgID: k.OrgID.String(), Role: k.Role, Mode: k.Mode}, nil
}

type revokeOut struct {
	ID        string `json:"id"`
	RevokedAt string `json:"revokedAt"`
}

func adminRevokeKey(ctx context.Context, d *db.DB, id string) (revokeOut, error) {
	keyID, err := uuid.Parse(id)
	if err != nil {
		return revokeOut{}, errors.New("key revoke: --id must be a key id")
	}
	var k db.ApiKey
	err = d.InTx(ctx, func(q *db.Queries) error {
		var err error
		if k, err = q.RevokeAPIKey(ctx, keyID); err != nil {
			return err
		}
		e := adminEvent(k.OrgID)
		e.Action, e.Target = audit.KeyRevoke, keyID.String()
		return audit.Append(ctx, q, e)
	})
	if db.IsNotFound(err) {
		return revokeOut{}, fmt.Errorf("key revoke: no key %s", keyID)
	}
	if err != nil {
		return revokeOut{}, err
	}
	return revokeOut{ID: k.ID.String(), RevokedAt: k.RevokedAt.UTC().Format("2006-01-02T15:04:05Z")}, nil
}

func adminGrantCredits(ctx context.Context, d *db.DB, org string, amount int64) (orgOut, error) {
	orgID, err := uuid.Parse(org)
	if err != nil {
		return orgOut{}, errors.New("credits grant: --org must be an organization id")
	}
	if amount <= 0 {
		return orgOut{}, errors.New("credits grant: --amount must be a positive number")
	}
	var o db.Organization
	err = d.InTx(ctx, func(q *db.Queries) error {
		actor := audit.AdminActor
		g, err := q.GrantCredits(ctx, db.GrantCreditsParams{ID: orgID, Amount: amount, Actor: &actor})
		if err != nil {
			return err
		}
		o = db.Organization(g)
		e := adminEvent(orgID)
		e.Action, e.Detail = audit.CreditsGrant, fmt.Sprintf("%d", amount)
		return audit.Append(ctx, q, e)
	})
	if db.IsNotFound(err) {
		return orgOut{}, fmt.Errorf("credits grant: no organization %s", orgID)
	}
	if err != nil {
		return orgOut{}, err
	}
	return orgOut{ID: o.ID.String(), Name: o.Name, Credits: o.Credits}, nil
}

// onOff reads a switch flag: on/off (true/false, yes/no, 1/0 accepted too).
func onOff(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("want on or off, not %q", v)
}
