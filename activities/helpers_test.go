package activities

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

func TestLockError(t *testing.T) {
	lockWait := &pgconn.PgError{Code: "55P03", Message: "canceling statement due to lock timeout"}
	otherPg := &pgconn.PgError{Code: "23505", Message: "duplicate key"}
	dup := errcode.New(errcode.DuplicateIssuance, "held")
	cases := []struct {
		name string
		in   error
		want errcode.Code // "" means the error is returned unchanged
	}{
		{"lock timeout", lockWait, errcode.IssuanceLockTimeout},
		{"wrapped lock timeout", fmt.Errorf("lock recipient: %w", lockWait), errcode.IssuanceLockTimeout},
		{"connection lost", errors.New("unexpected EOF"), errcode.IssuanceLockLost},
		{"connect error", fmt.Errorf("commit: %w", &pgconn.ConnectError{}), errcode.IssuanceLockLost},
		{"deadline", fmt.Errorf("commit: %w", context.DeadlineExceeded), errcode.IssuanceLockLost},
		{"other server error", otherPg, ""},
		{"already coded", dup, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := lockError(c.in)
			require.Error(t, got)
			require.ErrorIs(t, got, c.in, "the cause is kept")
			if c.want == "" {
				require.Same(t, c.in, got)
				return
			}
			require.Equal(t, c.want, errcode.Of(got))
		})
	}
	require.NoError(t, lockError(nil))
}

func TestSalt(t *testing.T) {
	a, b := "0b0e6f3c-1e9a-4a57-9c55-3d0f2e7d1a01", "0b0e6f3c-1e9a-4a57-9c55-3d0f2e7d1a02"
	require.Equal(t, salt(a), salt(a), "a retried signing must hash the identity identically")
	require.NotEqual(t, salt(a), salt(b))
	require.Len(t, salt(a), 24)
	require.Regexp(t, `^[0-9a-f]{24}$`, salt(a))
}

func TestImageCacheEvictsOldest(t *testing.T) {
	var c imageCache
	ids := make([]uuid.UUID, imageCacheSize+1)
	for i := range ids {
		ids[i] = uuid.New()
		c.put(ids[i], badgeImage{Data: []byte{byte(i)}})
	}
	_, ok := c.get(ids[0])
	require.False(t, ok, "the oldest entry is evicted")
	img, ok := c.get(ids[imageCacheSize])
	require.True(t, ok)
	require.Equal(t, []byte{byte(imageCacheSize)}, img.Data)
	c.put(ids[imageCacheSize], badgeImage{Data: []byte("other")}) // an id's bytes never change: no overwrite
	img, _ = c.get(ids[imageCacheSize])
	require.Equal(t, []byte{byte(imageCacheSize)}, img.Data)
}
