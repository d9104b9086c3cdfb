package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
)

// Local is a Store in a directory of the local file system. Writes go to a temporary file that is renamed into
// place, so a reader never sees half an object. The content type is not stored: it is derived from the key's
// extension, which every caller sets.
type Local struct {
	root string
}

// NewLocal returns a store rooted at dir, creating the directory when it is missing.
func NewLocal(dir string) (*Local, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create blob dir: %w", err)
	}
	return &Local{root: dir}, nil
}

func (l *Local) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put implements Store.
func (l *Local) Put(ctx context.Context, key string, data []byte, contentType string) error {
	_, err := l.write(key, data, false)
	return err
}

// PutIfAbsent implements Store.
func (l *Local) PutIfAbsent(ctx context.Context, key string, data []byte, contentType string) (bool, error) {
	return l.write(key, data, true)
}

func (l *Local) write(key string, data []byte, ifAbsent bool) (bool, error) {
	p, err := l.path(key)
	if err != nil {
		return false, uploadFailed(key, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, uploadFailed(key, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return false, uploadFailed(key, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename or link
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, uploadFailed(key, err)
	}
	if err := tmp.Close(); err != nil {
		return false, uploadFailed(key, err)
	}
	if ifAbsent {
		// link fails with EEXIST when the key is taken: an atomic create-if-absent.
		if err := os.Link(tmp.Name(), p); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return false, nil
			}
			return false, uploadFailed(key, err)
		}
		return true, nil
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return false, uploadFailed(key, err)
	}
	return true, nil
}

// Get implements Store.
func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, Info{}, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Info{}, ErrNotFound
	}
	if err != nil {
		return nil, Info{}, fmt.Errorf("open blob %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Info{}, fmt.Errorf("stat blob %s: %w", key, err)
	}
	return f, Info{Key: key, Size: st.Size(), ContentType: contentTypeOf(key)}, nil
}

// Stat implements Store.
func (l *Local) Stat(ctx context.Context, key string) (Info, error) {
	p, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("stat blob %s: %w", key, err)
	}
	return Info{Key: key, Size: st.Size(), ContentType: contentTypeOf(key)}, nil
}

// Delete implements Store.
func (l *Local) Delete(ctx context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

func contentTypeOf(key string) string {
	if t := mime.TypeByExtension(filepath.Ext(key)); t != "" {
		return t
	}
	return "application/octet-stream"
}
