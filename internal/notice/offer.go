package notice

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/oid4vci"
)

// Offer is the wallet offer of an assertion's issue notice, as WalletOffers returns it; the zero Offer is none.
type Offer = db.EnsureNotificationOffersRow

// WalletOffers returns the wallet offers the issue notices of as carry, by assertion id: created on the first call
// for an assertion and the same offer on every retry or resend (EnsureNotificationOffers), until it lapses unused
// (Offer.Lapsed: IssueNoticeWith then links a fresh one). Only live credentials of v3 issuances get one (v2
// integrators know nothing of wallets, and a test credential is not the recipient's), and only when the
// organization leaves wallet offers on (`badged admin org update --wallet-offers`); the others, and every one when
// DB or Issuer is nil, have no entry. One statement per organization of as (one for a chunk of an issuance), so
// the notify step does not pay a round trip per recipient.
func (c Composer) WalletOffers(ctx context.Context, as []db.Assertion) (map[uuid.UUID]Offer, error) {
	batches := map[uuid.UUID]*db.EnsureNotificationOffersParams{} // by organization; every offer here is live
	for _, a := range as {
		if c.DB == nil || c.Issuer == nil || a.Mode != apikey.ModeLive || a.ApiVersion != 3 {
			continue
		}
		p := batches[a.OrgID]
		if p == nil {
			p = &db.EnsureNotificationOffersParams{OrgID: a.OrgID, Mode: apikey.ModeLive,
				TtlSeconds: int32(oid4vci.OfferTTL / time.Second)}
			batches[a.OrgID] = p
		}
		p.AssertionIds = append(p.AssertionIds, a.ID)
		p.Ids = append(p.Ids, uuid.New())
	}
	out := make(map[uuid.UUID]Offer, len(as))
	for _, p := range batches {
		rows, err := c.DB.EnsureNotificationOffers(ctx, *p)
		if err != nil {
			return nil, err
		}
		for _, o := range rows {
			out[o.AssertionID] = o
		}
	}
	return out, nil
}

// AttachWalletOffer adds the wallet offer of as (WalletOffers, for this one assertion) to its issue notice n.
func (c Composer) AttachWalletOffer(ctx context.Context, as db.Assertion, n *notify.Notification) error {
	offers, err := c.WalletOffers(ctx, []db.Assertion{as})
	if err != nil {
		return err
	}
	return c.attachOffer(ctx, as, offers[as.ID], n)
}

// attachOffer adds o, the wallet offer of as from WalletOffers, to n: nothing for the zero Offer. A lapsed one is
// replaced first: a message sent after the offer's lifetime links a fresh offer that works, the lapsed one giving
// up its place if it was never used nor withdrawn (RetireLapsedNotificationOffer; otherwise it is linked as it is).
// Rare (a message sent a month on), so one assertion at a time. No transaction is needed: a retire that is not
// followed by the mint (a crash) leaves the place free for the next message's.
func (c Composer) attachOffer(ctx context.Context, as db.Assertion, o Offer, n *notify.Notification) error {
	if o.ID == uuid.Nil {
		return nil
	}
	if o.Lapsed {
		retired, err := c.DB.RetireLapsedNotificationOffer(ctx, as.ID)
		if err != nil {
			return err
		}
		if retired > 0 {
			offers, err := c.WalletOffers(ctx, []db.Assertion{as})
			if err != nil {
				return err
			}
			if o = offers[as.ID]; o.ID == uuid.Nil {
				return nil // the organization turned wallet offers off meanwhile
			}
		}
	}
	link := oid4vci.OfferLink(oid4vci.OfferURI(c.Issuer.BaseURL, o.ID))
	qr, err := oid4vci.OfferQR(link)
	if err != nil {
		// The landing page shows the QR code too: a mail without the inline one beats no mail.
		c.Log.WarnContext(ctx, "wallet offer QR code left out", "assertionId", as.ID, "err", err)
	}
	n.Wallet = &notify.WalletOffer{Link: link, PageURL: oid4vci.OfferPageURL(c.Issuer.BaseURL, o.ID, n.Locale), QR: qr,
		ExpiresAt: o.ExpiresAt}
	return nil
}
