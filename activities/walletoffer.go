package activities

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/oid4vci"
)

// attachWalletOffer adds the wallet offer to a recipient's issue notice: created on the first call for the
// assertion and the same offer on every retry or resend (EnsureNotificationOffer). Only live credentials of v3
// issuances get one (v2 integrators know nothing of wallets, and a test credential is not the recipient's), and
// only when the organization leaves wallet offers on (`badged admin org update --wallet-offers`).
func (a *Activities) attachWalletOffer(ctx context.Context, as db.Assertion, n *notify.Notification) error {
	if as.Mode != "live" || as.ApiVersion != 3 || a.Issuer == nil {
		return nil
	}
	o, err := a.DB.EnsureNotificationOffer(ctx, db.EnsureNotificationOfferParams{OrgID: as.OrgID, ID: uuid.New(),
		AssertionID: as.ID, Mode: as.Mode, TtlSeconds: int32(oid4vci.OfferTTL / time.Second)})
	if db.IsNotFound(err) {
		return nil // the organization turned wallet offers off
	}
	if err != nil {
		return err
	}
	link := oid4vci.OfferLink(oid4vci.OfferURI(a.Issuer.BaseURL, o.ID))
	qr, err := oid4vci.OfferQR(link)
	if err != nil {
		// The landing page shows the QR code too: a mail without the inline one beats no mail.
		a.Log.WarnContext(ctx, "wallet offer QR code left out", "assertionId", as.ID, "err", err)
	}
	n.Wallet = &notify.WalletOffer{Link: link, PageURL: oid4vci.OfferPageURL(a.Issuer.BaseURL, o.ID, n.Locale), QR: qr,
		ExpiresAt: o.ExpiresAt}
	return nil
}
