package notice

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/oid4vci"
)

// MaxInlineBadge caps the baked image a mail carries inline: a baked PNG up to this size goes in the mail (the
// recipient then holds the verifiable badge itself); a larger one, or an SVG (which mail clients do not show), is
// linked instead, so a message stays well under common 10-25 MB limits.
const MaxInlineBadge = 1 << 20

// DefaultFromName is the From display name pattern when Composer.FromName is empty.
const DefaultFromName = "{org} via badged"

// Composer builds a recipient's message from the stored assertion. Issuer and Log are required.
type Composer struct {
	Issuer *issuer.Service // the links: badge page, image, certificate, wallet offer
	Blob   blob.Store      // nil: the baked badge is linked, never inline
	DB     *db.DB          // nil: no wallet offer
	// Location is the time zone the expiry is shown in; nil is UTC.
	Location *time.Location
	// FromName is the From display name pattern, "{org}" standing for the organization's name (SMTP_FROM_NAME);
	// empty means DefaultFromName.
	FromName string
	Log      *slog.Logger
}

// IssueNotice builds the issue notice of a credential: Notice, and the wallet offer when DB is set (see
// AttachWalletOffer). An error is a failure to create the offer.
func (c Composer) IssueNotice(ctx context.Context, as db.Assertion, badgeName, orgName string) (notify.Notification, error) {
	n := c.Notice(ctx, as, badgeName, orgName)
	if c.DB == nil {
		return n, nil
	}
	return n, c.AttachWalletOffer(ctx, as, &n)
}

// Notice builds a recipient's message: the organization's name as the From display name (the address is the
// deployment's), the expiry, the badge page and the recipient's PDF certificate, the baked badge inline (when
// Blob is set), in the language the names are written in (notify.LocaleFor).
func (c Composer) Notice(ctx context.Context, as db.Assertion, badgeName, orgName string) notify.Notification {
	pattern := c.FromName
	if pattern == "" {
		pattern = DefaultFromName
	}
	n := notify.Notification{AssertionID: as.ID.String(), Channel: notify.Channel(as.ReceiveType),
		Locale:        notify.LocaleFor(as.RecipientName, orgName, badgeName),
		RecipientName: as.RecipientName, Email: deref(as.RecipientEmail), Phone: deref(as.RecipientPhone),
		BadgeName: badgeName, IssuerName: orgName,
		BadgeImageURL:  c.Issuer.BaseURL + "/credentials/" + as.ID.String() + "/image",
		VerifyURL:      c.Issuer.VerifyURL(as.ID),
		CertificateURL: c.Issuer.CertificateURL(as.ID, as.CertificateToken),
		ExpiresAt:      as.ExpiredAt, Location: c.Location,
		FromName: notify.FromDisplayName(pattern, orgName)}
	if c.Blob != nil && as.ReceiveType == string(notify.Email) && as.BakedKey != nil && as.BakedContentType != nil && *as.BakedContentType == "image/png" {
		img, err := c.readInline(ctx, *as.BakedKey)
		if err != nil {
			// The link still shows the badge: a mail without the inline copy beats no mail.
			c.Log.WarnContext(ctx, "inline badge image left out", "assertionId", as.ID, "err", err)
		}
		n.BadgeImage, n.BadgeImageType = img, "image/png"
	}
	return n
}

// readInline reads a stored image for a mail, or nil when it is larger than MaxInlineBadge.
func (c Composer) readInline(ctx context.Context, key string) ([]byte, error) {
	rc, info, err := c.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) || (err == nil && info.Size > MaxInlineBadge) {
		if rc != nil {
			rc.Close()
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxInlineBadge+1))
	if err != nil || len(b) > MaxInlineBadge {
		return nil, err
	}
	return b, nil
}

// AttachWalletOffer adds the wallet offer to a recipient's issue notice: created on the first call for the
// assertion and the same offer on every retry or resend (EnsureNotificationOffer), until it lapses unused: a
// message sent after that carries a fresh one (RetireLapsedNotificationOffer). Only live credentials of v3
// issuances get one (v2 integrators know nothing of wallets, and a test credential is not the recipient's), and
// only when the organization leaves wallet offers on (`badged admin org update --wallet-offers`). DB must be set.
func (c Composer) AttachWalletOffer(ctx context.Context, as db.Assertion, n *notify.Notification) error {
	if as.Mode != apikey.ModeLive || as.ApiVersion != 3 || c.Issuer == nil {
		return nil
	}
	p := db.EnsureNotificationOfferParams{OrgID: as.OrgID, ID: uuid.New(), AssertionID: as.ID, Mode: as.Mode,
		TtlSeconds: int32(oid4vci.OfferTTL / time.Second)}
	o, err := c.DB.EnsureNotificationOffer(ctx, p)
	if err == nil && o.Lapsed {
		// A message sent after the offer's lifetime: an offer that lapsed unused gives up its place, so this message
		// links a fresh one that works. No transaction is needed: a retire that is not followed by the mint (a
		// crash) leaves the place free for the next message's.
		if _, err = c.DB.RetireLapsedNotificationOffer(ctx, as.ID); err == nil {
			o, err = c.DB.EnsureNotificationOffer(ctx, p)
		}
	}
	if db.IsNotFound(err) {
		return nil // the organization turned wallet offers off
	}
	if err != nil {
		return err
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

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
