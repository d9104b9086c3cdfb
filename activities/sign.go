package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
)

// SignCredential builds the OpenBadgeCredential of a recipient, signs it with the organization's key
// (eddsa-rdfc-2022) and records it with its SHA-256 in Postgres; it is published by the upload step, once
// anchored and baked. The proof's created time is the issue time and Ed25519 is deterministic, so a retry signs to
// the same bytes.
func (a *Activities) SignCredential(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "sign", in, a.signCredential(ctx, in))
}

func (a *Activities) signCredential(ctx context.Context, in StepInput) error {
	row, err := a.DB.GetPipelineAssertion(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	if as.Step != StepChecked {
		return nil // signed by an earlier attempt
	}
	list, index, err := a.Issuer.AllocateStatus(ctx, as)
	if err != nil {
		return persistErr("allocate status list entry", err)
	}
	doc, err := credential.Build(a.buildInput(row, list.String(), index))
	if err != nil {
		return err
	}
	signed, err := a.Issuer.Sign(ctx, as.OrgID, doc, as.IssuedAt)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(signed)
	if _, err := a.DB.SetAssertionCredential(ctx, db.SetAssertionCredentialParams{ID: as.ID, CredentialJson: signed,
		CredentialSha256: sum[:]}); err != nil {
		return persistErr("record credential", err)
	}
	return nil
}

// buildInput maps a badge and its recipient onto the OB 3.0 credential.
func (a *Activities) buildInput(row db.GetPipelineAssertionRow, listID string, index int) credential.BuildInput {
	as := row.Assertion
	in := credential.BuildInput{
		ID:        a.Issuer.CredentialID(as.ID),
		Issuer:    credential.Issuer{ID: a.Issuer.IssuerID(as.OrgID), Name: row.OrgName, URL: a.Issuer.BaseURL},
		ValidFrom: as.IssuedAt,
		Name:      row.BadgeName,
		Recipient: credential.Recipient{Email: deref(as.RecipientEmail), Salt: salt(as.ID.String())},
		Achievement: credential.Achievement{
			ID: a.Issuer.AchievementID(as.BadgeID), Name: row.BadgeName, Description: row.BadgeDescription,
			CriteriaNarrative: criteriaNarrative(row.BadgeCriteria),
			ImageURL:          a.Issuer.BaseURL + "/media/" + row.BadgeImageID.String() + "/original",
			Skills:            skills(row.BadgeSkills),
		},
		Status: &credential.StatusEntry{ListCredential: a.Issuer.BaseURL + "/status-lists/" + listID, Index: index},
	}
	if in.Recipient.Email == "" {
		// Without an email the recipient is identified by phone or external id, hashed the same way.
		id := deref(as.RecipientPhone)
		if id == "" {
			id = "sourcedId:" + deref(as.RecipientSourcedID)
		}
		in.Recipient.Email = id
	}
	if as.ExpiredAt != nil {
		in.ValidUntil = *as.ExpiredAt
	}
	return in
}

// salt is per assertion and derived from its id, so a retried signing hashes the identity identically.
func salt(assertion string) string {
	sum := sha256.Sum256([]byte("badged-identity-salt/" + assertion))
	return hex.EncodeToString(sum[:12])
}

func criteriaNarrative(raw []byte) string {
	var crit []struct{ Category, Value string }
	if err := json.Unmarshal(raw, &crit); err != nil || len(crit) == 0 {
		return ""
	}
	lines := make([]string, len(crit))
	for i, c := range crit {
		lines[i] = c.Value
	}
	return strings.Join(lines, "\n")
}

func skills(raw []byte) []credential.Skill {
	var in []struct {
		SourceType     string  `json:"sourceType"`
		SkillName      *string `json:"skillName"`
		ServiceSkillID *string `json:"serviceSkillId"`
		Language       *string `json:"language"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil
	}
	out := make([]credential.Skill, 0, len(in))
	for _, s := range in {
		if s.SkillName != nil {
			out = append(out, credential.Skill{Name: *s.SkillName})
		} else if s.ServiceSkillID != nil {
			out = append(out, credential.Skill{Name: *s.ServiceSkillID, Code: *s.ServiceSkillID, Framework: "badged service skills"})
		}
	}
	return out
}
