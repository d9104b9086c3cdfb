// Package blob stores artifacts (uploaded images, baked badges, credentials, PDFs) behind one interface, with a
// local-directory store for the embedded default and an S3 store for production.
//
// It imports only internal/errcode.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/badged/badged/internal/errcode"
)

// ErrNotFound is returned by Get and Stat when no object has the key.
var ErrNotFound = errors.New("blob: object not found")

// Info describes a stored object.
type Info struct {
	Key         string
	Size        int64
	ContentType string
}

// Store is an object store. Keys are slash-separated relative paths such as "media/<org>/<id>/original.png";
// they are derived from ids by the caller, so a retried Put writes the same key.
type Store interface {
	// Put writes the object, replacing any object with the same key. Failures are *errcode.Error with
	// errcode.ArtifactUploadFailed.
	Put(ctx context.Context, key string, data []byte, contentType string) error
	// PutIfAbsent writes the object only when the key is free and reports whether it wrote it. A retried step uses
	// it so that an artifact, once stored, is never replaced. Failures are *errcode.Error with
	// errcode.ArtifactUploadFailed.
	PutIfAbsent(ctx context.Context, key string, data []byte, contentType string) (bool, error)
	// Get opens the object. It returns ErrNotFound when the key is free. The caller closes the reader.
	Get(ctx context.Context, key string) (io.ReadCloser, Info, error)
	// Stat describes the object. It returns ErrNotFound when the key is free.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the object; deleting a free key is not an error.
	Delete(ctx context.Context, key string) error
}

// CheckKey rejects keys that could escape the store's root or are not plain relative paths.
func CheckKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") {
		return fmt.Errorf("blob: invalid key %q", key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("blob: invalid key %q", key)
		}
	}
	return nil
}

func uploadFailed(key string, err error) error {
	return errcode.Wrap(errcode.ArtifactUploadFailed, "store "+key, err)
}
