package notice

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
)

// recorder is a notify.Sender that keeps what it was given.
type recorder struct{ got []notify.Notification }

func (r *recorder) Send(_ context.Context, n notify.Notification) (notify.Receipt, error) {
	r.got = append(r.got, n)
	return notify.Receipt{}, nil
}

// A test-mode credential's message never reaches its recipient; a live one's does, unless the deployment has no
// notifier.
func TestDeliver(t *testing.T) {
	ctx := context.Background()
	live, outbox := &recorder{}, &recorder{}
	notifier := &notify.Notifier{Email: live, Kakao: live}
	n := notify.Notification{AssertionID: uuid.NewString(), Channel: notify.Email, Email: "a@example.com"}
	require.NoError(t, Deliver(ctx, notifier, outbox, "test", n))
	require.Len(t, outbox.got, 1)
	require.Empty(t, live.got)
	require.NoError(t, Deliver(ctx, notifier, outbox, "live", n))
	require.Len(t, live.got, 1)
	require.NoError(t, Deliver(ctx, nil, outbox, "live", n))
	require.Len(t, outbox.got, 2)
}

// Without a blob store the baked badge is linked, not carried; without a database no wallet offer is made; an
// empty From name pattern is the default one; the names' script picks the language.
func TestComposer_WithoutStores(t *testing.T) {
	ctx := context.Background()
	png := "image/png"
	key := "baked/x.png"
	as := db.Assertion{ID: uuid.New(), CertificateToken: uuid.New(), Mode: "live", ApiVersion: 3, ReceiveType: "EMAIL",
		RecipientName: "Jane Doe", BakedKey: &key, BakedContentType: &png}
	c := Composer{Issuer: issuer.New(nil, nil, "https://badges.example/"), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	n, err := c.IssueNotice(ctx, as, "Go Expert", "Badged Academy")
	require.NoError(t, err)
	require.Equal(t, "Badged Academy via badged", n.FromName)
	require.Equal(t, "en", n.Locale)
	require.Equal(t, "https://badges.example/credentials/"+as.ID.String()+"/image", n.BadgeImageURL)
	require.Equal(t, "https://badges.example/verify/"+as.ID.String(), n.VerifyURL)
	require.Nil(t, n.BadgeImage)
	require.Nil(t, n.Wallet)
	require.Nil(t, n.Location)

	seoul := time.FixedZone("KST", 9*3600)
	c.Location, c.FromName = seoul, "{org}"
	as.RecipientName = "김민지"
	n = c.Notice(ctx, as, "Go Expert", "Badged Academy")
	require.Equal(t, "ko", n.Locale)
	require.Equal(t, "Badged Academy", n.FromName)
	require.Equal(t, seoul, n.Location)
}
