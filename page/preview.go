package page

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/sharecard"
	"github.com/badged/badged/internal/web"
)

// previewURL is the stable URL of an assertion's social preview image in lang: the page's og:image and
// twitter:image, and the embed snippet's image.
func (h *Handler) previewURL(id uuid.UUID, lang string) string {
	return h.urls.BaseURL + "/credentials/" + id.String() + "/preview.png?lang=" + lang
}

// previewKinds maps the page's verdict onto the card's state; a verdict the card has no state for is drawn as
// unverified, never as valid.
var previewKinds = map[string]sharecard.Kind{"valid": sharecard.KindValid, "revoked": sharecard.KindRevoked,
	"expired": sharecard.KindExpired, "replaced": sharecard.KindReplaced, "invalid": sharecard.KindUnverified, "test": sharecard.KindTest}

// SharePreview answers GET /credentials/{id}/preview.png(?lang=en|ko): the 1200×630 social preview of an issued
// assertion as it stands now. Like the certificate, what it shows is decided on each request as the page decides it
// (the same assessment and verdict), and the PNG is rendered once per distinct content and kept in the blob store
// under a key derived from all of it, the state included: a revocation or an expiry is a new key, so a kept image
// can never show a state the badge has left, and nothing needs invalidating. The ETag is that digest, so a link
// preview crawler that asks again gets 304 until the state changes. An unknown id is 404.
func (h *Handler) SharePreview(w http.ResponseWriter, r *http.Request) error {
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	if !found {
		return web.NotFound("no such badge")
	}
	if private, err := h.db.IsBadgePagePrivate(r.Context(), row.Assertion.ID); err != nil || private {
		if err != nil {
			return err
		}
		return web.NotFound("no such badge") // a private page has no preview to share
	}
	in, badgeImage := h.previewInput(row, h.assess(r.Context(), row.Assertion), certificateLang(r, row))
	key, digest, err := previewKey(row.Assertion.ID, in, badgeImage)
	if err != nil {
		return err
	}
	etag := `"` + digest + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache") // the state can change at any time: a cache must ask again (304 while it has not)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if _, err := h.blob.Stat(r.Context(), key); errors.Is(err, blob.ErrNotFound) {
		if err := h.renderPreview(r.Context(), key, in, badgeImage); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	return web.ServeBlob(w, r, h.blob, h.log, key, "image/png", "")
}

// previewInput is what the card of row shows in lang: the page's facts and verdict, so the two never disagree.
func (h *Handler) previewInput(row db.GetBadgePageRow, as assessment, lang string) (sharecard.Input, uuid.UUID) {
	displayNames(&row)
	f := h.shownFacts(row, as)
	v := h.pageVerdict(row, as, f, lang)
	kind, ok := previewKinds[v.Kind]
	if !ok {
		kind = sharecard.KindUnverified
	}
	in := sharecard.Input{BadgeName: f.Badge, Recipient: f.Recipient, AwardedLabel: msg(lang, "card.awarded"), Issuer: f.Issuer,
		Kind: kind, StatusWord: shareStatusWord(v.Kind, lang), Footer: msg(lang, "card.footer", hostOf(h.urls.BaseURL))}
	if kind != sharecard.KindValid {
		in.StatusText = v.Title
	}
	return in, f.Image
}

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// previewKey is where the card of in is kept: the assertion, then a digest of everything drawn (the layout
// version, the texts, the state and the badge image's id). The digest is also the answer's ETag.
func previewKey(id uuid.UUID, in sharecard.Input, badgeImage uuid.UUID) (key, digest string, err error) {
	b, err := json.Marshal(struct {
		Layout int
		Input  sharecard.Input
		Image  uuid.UUID
	}{sharecard.LayoutVersion, in, badgeImage})
	if err != nil {
		return "", "", fmt.Errorf("preview key: %w", err)
	}
	sum := sha256.Sum256(b)
	digest = hex.EncodeToString(sum[:16])
	return "previews/" + id.String() + "/" + digest + ".png", digest, nil
}

// renderPreview renders the card with its badge image and keeps it at key. Renders share the certificate's
// bound on concurrent renders (Handler.render); two requests racing on one key both render and the first write
// wins (PutIfAbsent), which is harmless (the content is the same).
func (h *Handler) renderPreview(ctx context.Context, key string, in sharecard.Input, badgeImage uuid.UUID) error {
	if badgeImage != uuid.Nil { // none (the signed image is no upload of this service) draws the placeholder
		img, err := h.mediaBytes(ctx, badgeImage, "medium")
		if err != nil { // a missing image draws the placeholder; the card still says who earned what
			h.log.WarnContext(ctx, "preview badge image", "media", badgeImage, "err", err)
		}
		in.BadgeImage = img
	}
	png, err := h.render(ctx, "preview", func() ([]byte, error) { return sharecard.Render(in) })
	if err != nil {
		return fmt.Errorf("render preview: %w", err)
	}
	h.metrics.SharePreviewRendered()
	if _, err := h.blob.PutIfAbsent(ctx, key, png, "image/png"); err != nil {
		return fmt.Errorf("store preview: %w", err)
	}
	return nil
}
