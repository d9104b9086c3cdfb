package notice

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
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
	return n, c.AttachWalletOffer(ctx, as, &n)
}

// IssueNoticeWith is IssueNotice with the wallet offer fetched beforehand: offer is the assertion's entry in what
// WalletOffers returned for a set that held it (the zero Offer, the entry of an assertion that gets none: no
// offer). The notify step fetches a chunk's offers in one statement this way.
func (c Composer) IssueNoticeWith(ctx context.Context, as db.Assertion, badgeName, orgName string, offer Offer) (notify.Notification, error) {
	n := c.Notice(ctx, as, badgeName, orgName)
	return n, c.attachOffer(ctx, as, offer, &n)
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

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
