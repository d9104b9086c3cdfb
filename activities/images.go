package activities

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/issuer"
)

// maxBadgeImage caps what the pipeline reads of a badge image; uploads are smaller (MEDIA_MAX_BYTES).
const maxBadgeImage = 32 << 20

// badgeImageKey finds the blob key of a badge image's original upload; BADGE_IMAGE_MISSING when it does not exist.
func (a *Activities) badgeImageKey(ctx context.Context, id uuid.UUID) (key, contentType string, err error) {
	m, err := a.DB.GetMediaFileAnyOrg(ctx, id)
	if db.IsNotFound(err) {
		return "", "", errcode.New(errcode.BadgeImageMissing, "badge image "+id.String()+" is not in the database")
	}
	if err != nil {
		return "", "", errcode.Wrap(errcode.BadgeImageDownloadFailed, "look up badge image", err)
	}
	key = issuer.MediaKey(id.String(), "original", m.Ext)
	if _, err := a.Blob.Stat(ctx, key); errors.Is(err, blob.ErrNotFound) {
		return "", "", errcode.New(errcode.BadgeImageMissing, "badge image "+id.String()+" is not in the store")
	} else if err != nil {
		return "", "", errcode.Wrap(errcode.BadgeImageDownloadFailed, "stat badge image", err)
	}
	return key, m.ContentType, nil
}

// badgeImage reads the original upload of a badge image: BADGE_IMAGE_MISSING when it does not exist,
// BADGE_IMAGE_DOWNLOAD_FAILED when the store fails.
func (a *Activities) badgeImage(ctx context.Context, id uuid.UUID) (badgeImage, error) {
	if img, ok := a.images.get(id); ok {
		return img, nil
	}
	img, err := a.readBadgeImage(ctx, id)
	if err == nil {
		a.images.put(id, img)
	}
	return img, err
}

func (a *Activities) readBadgeImage(ctx context.Context, id uuid.UUID) (badgeImage, error) {
	key, contentType, err := a.badgeImageKey(ctx, id)
	if err != nil {
		return badgeImage{}, err
	}
	rc, _, err := a.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return badgeImage{}, errcode.New(errcode.BadgeImageMissing, "badge image "+id.String()+" is not in the store")
	}
	if err != nil {
		return badgeImage{}, errcode.Wrap(errcode.BadgeImageDownloadFailed, "read badge image", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxBadgeImage))
	if err != nil {
		return badgeImage{}, errcode.Wrap(errcode.BadgeImageDownloadFailed, "read badge image", err)
	}
	return badgeImage{Data: data, ContentType: contentType}, nil
}

type badgeImage struct {
	Data        []byte
	ContentType string
}

// imageCacheSize bounds the badge images a worker keeps: uploads are at most MEDIA_MAX_BYTES (5 MiB by default).
const imageCacheSize = 16

// imageCache keeps recently read badge images: every recipient of an issuance bakes the same image, and an
// uploaded image never changes under its id, so entries need no invalidation. The zero value is ready to use.
type imageCache struct {
	mu    sync.Mutex
	order []uuid.UUID // oldest first
	byID  map[uuid.UUID]badgeImage
}

func (c *imageCache) get(id uuid.UUID) (badgeImage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	img, ok := c.byID[id]
	return img, ok
}

func (c *imageCache) put(id uuid.UUID, img badgeImage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = make(map[uuid.UUID]badgeImage, imageCacheSize)
	}
	if _, ok := c.byID[id]; ok {
		return
	}
	if len(c.order) == imageCacheSize {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, id)
	c.byID[id] = img
}
