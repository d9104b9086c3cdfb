package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
)

// copyOut is one wallet copy as `badged admin assertion copies` prints it.
type copyOut struct {
	ID                string  `json:"id"`
	Format            string  `json:"format"`
	ConfigurationID   string  `json:"configurationId"`
	HolderDID         string  `json:"holderDid"`
	ClaimedAt         string  `json:"claimedAt"`
	NotificationEvent *string `json:"notificationEvent"` // what the wallet last reported (credential_accepted …)
	NotifiedAt        *string `json:"notifiedAt"`
	// Anchor: "pending" (waits for the worker's wallet anchor sweep), "assigned" (its transaction is on its way),
	// "mined", or "none" (test mode: never anchored).
	Anchor       string  `json:"anchor"`
	AnchorTxHash *string `json:"anchorTxHash"`
	AnchorBlock  *int64  `json:"anchorBlock"`
	ReceiptURL   *string `json:"receiptUrl"`
}

type copiesOut struct {
	AssertionID string    `json:"assertionId"`
	Copies      []copyOut `json:"copies"`
}

// adminAssertionCopies lists the wallet copies of an assertion: format, holder DID, time, the wallet's last
// notification event and the copy's anchor.
func adminAssertionCopies(ctx context.Context, d *db.DB, baseURL, id string) (copiesOut, error) {
	aid, err := uuid.Parse(id)
	if err != nil {
		return copiesOut{}, errors.New("assertion copies: --id must be an assertion id")
	}
	if _, err := d.GetAssertionByID(ctx, aid); db.IsNotFound(err) {
		return copiesOut{}, fmt.Errorf("assertion copies: no assertion %s", aid)
	} else if err != nil {
		return copiesOut{}, err
	}
	rows, err := d.ListWalletCopiesForAdmin(ctx, aid)
	if err != nil {
		return copiesOut{}, fmt.Errorf("list wallet copies: %w", err)
	}
	out := copiesOut{AssertionID: aid.String(), Copies: make([]copyOut, 0, len(rows))}
	iss := issuer.New(d, nil, baseURL)
	for _, r := range rows {
		c := copyOut{ID: "urn:uuid:" + r.ID.String(), Format: r.Format, ConfigurationID: r.ConfigurationID,
			HolderDID: r.HolderDid, ClaimedAt: r.CreatedAt.UTC().Format(time.RFC3339), NotificationEvent: r.NotificationEvent,
			AnchorTxHash: r.AnchorTxHash, AnchorBlock: r.AnchorBlock, Anchor: "none"}
		if r.NotifiedAt != nil {
			s := r.NotifiedAt.UTC().Format(time.RFC3339)
			c.NotifiedAt = &s
		}
		switch {
		case r.AnchorBlock != nil:
			c.Anchor = "mined"
			u := iss.ReceiptURL(r.ID)
			c.ReceiptURL = &u
		case r.AnchorKey != nil:
			c.Anchor = "assigned"
		case r.AnchorPending:
			c.Anchor = "pending"
		}
		out.Copies = append(out.Copies, c)
	}
	return out, nil
}

// adminKeyringRewrap re-seals every issuer key (Ed25519 and RSA) sealed under another entry than the primary one
// of ISSUER_KEY_RING: the step between prepending a new entry and dropping the old one.
func adminKeyringRewrap(ctx context.Context, cfg config.Config, d *db.DB) (issuer.RewrapResult, error) {
	ring, err := openKeyring(cfg, false)
	if err != nil {
		return issuer.RewrapResult{}, err
	}
	return issuer.New(d, ring, cfg.PublicBaseURL).RewrapKeys(ctx)
}
