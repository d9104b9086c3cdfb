package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"runtime"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
)

// SignCredentials builds the OpenBadgeCredential of each recipient, signs it with the key of the organization's
// issuer of the issuance's mode (eddsa-rdfc-2022) and records it with its SHA-256 in Postgres; it is published by the
// publish step, once anchored and baked. The proof's created time is the issue time and Ed25519 is deterministic, so a retry signs to the same
// bytes. Signing is CPU work: the chunk is signed on every core, then recorded in one statement.
func (a *Activities) SignCredentials(ctx context.Context, in StepBatch) (StepResult, error) {
	return a.headedForAnchor(ctx, "sign", in, a.onChunk(StepChecked, a.signCredentials))
}

func (a *Activities) signCredentials(ctx context.Context, todo chunk, failed failures) (failures, error) {
	if len(todo) == 0 {
		return failed, nil
	}
	assertions := make([]db.Assertion, len(todo))
	for i, r := range todo {
		assertions[i] = r.Assertion
	}
	entries, err := a.Issuer.AllocateStatuses(ctx, assertions)
	if err != nil {
		return nil, persistErr("allocate status list entries", err)
	}
	// A chunk is one issuance: one organization and one mode. A test issuance is signed by the test issuer, whose
	// key the live issuer's document never lists (issuer.Service.IssuerID).
	first := todo[0].Assertion
	signer, err := a.Issuer.Signer(ctx, first.OrgID, first.Mode)
	if err != nil {
		return nil, err
	}
	docs := make([][]byte, len(todo))
	errs := forEach(ctx, len(todo), runtime.GOMAXPROCS(0), func(ctx context.Context, i int) error {
		e := entries[todo[i].Assertion.ID]
		doc, err := credential.Build(a.buildInput(todo[i], e.List.String(), e.Index))
		if err != nil {
			return err
		}
		docs[i], err = signer.Sign(ctx, doc, todo[i].Assertion.IssuedAt)
		return err
	})
	ok := todo.succeeded(errs, failed)
	if len(ok) == 0 {
		return failed, nil
	}
	params := db.SetAssertionCredentialsParams{}
	for _, i := range ok {
		sum := sha256.Sum256(docs[i])
		params.Ids = append(params.Ids, todo[i].Assertion.ID)
		params.Docs = append(params.Docs, docs[i])
		params.Shas = append(params.Shas, sum[:])
	}
	if _, err := a.DB.SetAssertionCredentials(ctx, params); err != nil {
		return nil, persistErr("record credentials", err)
	}
	return failed, nil
}

// buildInput maps a badge and its recipient onto the OB 3.0 credential.
func (a *Activities) buildInput(row db.ListPipelineAssertionsRow, listID string, index int) credential.BuildInput {
	as := row.Assertion
	in := credential.BuildInput{
		ID:        a.Issuer.CredentialID(as.ID),
		Issuer:    a.Issuer.Profile(as.OrgID, as.Mode, row.OrgName, deref(row.OrgWebsiteUrl)),
		ValidFrom: as.IssuedAt,
		Name:      row.BadgeName,
		// The name is signed so that the page and the certificate vouch only for what the credential says.
		Recipient: credential.Recipient{Email: deref(as.RecipientEmail), Salt: salt(as.ID.String()), Name: as.RecipientName},
		Achievement: a.Issuer.Achievement(issuer.Badge{ID: as.BadgeID, ImageID: row.BadgeImageID, Name: row.BadgeName,
			Description: row.BadgeDescription, Criteria: row.BadgeCriteria, Skills: row.BadgeSkills}),
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
	// Evidence was validated by the API (api/evidence.go) before it was stored; a row that does not read as
	// evidence signs without it rather than with a guess.
	if len(as.Evidence) > 0 {
		var ev []credential.Evidence
		if json.Unmarshal(as.Evidence, &ev) == nil {
			in.Evidence = ev
		}
	}
	return in
}

// salt is per assertion and derived from its id, so a retried signing hashes the identity identically.
func salt(assertion string) string {
	sum := sha256.Sum256([]byte("badged-identity-salt/" + assertion))
	return hex.EncodeToString(sum[:12])
}
