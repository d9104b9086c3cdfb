package issuancelog

import (
	"context"
	"crypto/ed25519"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// BackfillBatch is how many credentials one backfill transaction appends (one checkpoint each).
const BackfillBatch = 1000

// BackfillDeps is what the backfill needs of the issuer (internal/issuer.Service gives each).
type BackfillDeps struct {
	BaseURL      string                                                               // PUBLIC_BASE_URL, no trailing slash
	Key          func(ctx context.Context, org uuid.UUID) (ed25519.PrivateKey, error) // the organization's live key
	CredentialID func(assertion uuid.UUID) string
}

// Backfill appends the organization's credentials that were issued before its log existed, oldest issue first,
// BackfillBatch to a transaction, and returns how many it appended. Each credential goes in once: one already in
// the log (appended by the anchor step, or by an earlier backfill) is skipped, and the log's row lock orders a
// backfill with the issuances running meanwhile. Its checkpoints name no anchor.
func Backfill(ctx context.Context, d *db.DB, deps BackfillDeps, org uuid.UUID) (int64, error) {
	key, err := deps.Key(ctx, org)
	if err != nil {
		return 0, err
	}
	var total int64
	for {
		var added int64
		err := d.InTx(ctx, func(q *db.Queries) error {
			rows, err := q.ListIssuanceLogBackfill(ctx, db.ListIssuanceLogBackfillParams{OrgID: org, BaseUrl: deps.BaseURL, MaxRows: BackfillBatch})
			if err != nil || len(rows) == 0 {
				return err
			}
			es := make([]Entry, len(rows))
			for i, r := range rows {
				es[i] = Entry{CredentialID: deps.CredentialID(r.ID), Type: CredentialType, ValidFrom: r.IssuedAt}
				copy(es[i].SHA256[:], r.CredentialSha256)
			}
			res, err := Append(ctx, q, Origin(deps.BaseURL, org), org, key, es, nil)
			added = res.Added
			return err
		})
		if err != nil || added == 0 {
			return total, err
		}
		total += added
	}
}
