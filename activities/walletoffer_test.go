package activities

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

// TestNotify_WalletOffer sends issue notices over the SMTP test server: a live v3 recipient's mail carries the
// offer's https landing page, the openid-credential-offer:// link and the inline QR code (cid:), created once per
// assertion whatever the retries; v2, test-mode and an organization that turned offers off get none.
func TestNotify_WalletOffer(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	f.acts.Issuer = issuer.New(f.DB, nil, "https://badges.example")
	srv := smtptest.Start(t, smtptest.Options{NoTLS: true})
	s, err := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: notify.TLSNone, Auth: notify.AuthNone,
		From: "badged <noreply@badged.example>", Timeout: 5 * time.Second, TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12}})
	require.NoError(t, err)
	f.acts.Notifier = &notify.Notifier{Email: s}

	_, v3 := f.mustIssuance(t, "live", 3, recipient{Name: "Jane Doe", Step: StepUploaded})
	_, v2 := f.mustIssuance(t, "live", 2, recipient{Name: "John Roe", Step: StepUploaded})
	row := func(id uuid.UUID) db.ListPipelineAssertionsRow {
		rows, err := f.DB.ListPipelineAssertions(ctx, []uuid.UUID{id})
		require.NoError(t, err)
		require.Len(t, rows, 1)
		return rows[0]
	}
	require.NoError(t, f.acts.send(ctx, row(v3[0])))
	require.NoError(t, f.acts.send(ctx, row(v2[0])))
	// A retry after a lost answer sends again: the same offer, not a second one.
	require.NoError(t, f.acts.send(ctx, row(v3[0])))
	msgs := srv.Messages()
	require.Len(t, msgs, 3)

	offers := func(id uuid.UUID) []uuid.UUID {
		var out []uuid.UUID
		r, err := f.DB.Pool.Query(ctx, `SELECT id FROM credential_offers WHERE assertion_id = $1 AND for_notification`, id)
		require.NoError(t, err)
		defer r.Close()
		for r.Next() {
			var o uuid.UUID
			require.NoError(t, r.Scan(&o))
			out = append(out, o)
		}
		return out
	}
	got := offers(v3[0])
	require.Len(t, got, 1, "one offer per assertion for its notification")
	require.Empty(t, offers(v2[0]), "a v2 issuance's mail carries no offer")

	page := "https://badges.example/oid4vci/offers/" + got[0].String() + "/open?lang=en"
	link := "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fbadges.example%2Foid4vci%2Foffers%2F" + got[0].String()
	for _, m := range []smtptest.Message{msgs[0], msgs[2]} {
		body := decodeQP(t, m.Data)
		require.Contains(t, body, page)
		require.Contains(t, body, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`)
		require.Contains(t, body, "Wallet link: "+link)
		require.Contains(t, body, `src="cid:wallet-qr@badged"`)
		require.Contains(t, strings.ToLower(body), "content-id: <wallet-qr@badged>")
	}
	require.NotContains(t, decodeQP(t, msgs[1].Data), "openid-credential-offer")

	// Test mode, and an organization that turned wallet offers off: no offer.
	_, test := f.mustIssuance(t, "test", 3, recipient{Step: StepUploaded})
	n := notify.Notification{}
	require.NoError(t, f.acts.mail().AttachWalletOffer(ctx, f.mustAssertion(t, test[0]), &n))
	require.Nil(t, n.Wallet)
	off := false
	_, err = f.DB.UpdateOrganizationProfile(ctx, db.UpdateOrganizationProfileParams{ID: f.OrgID, WalletOffers: &off})
	require.NoError(t, err)
	_, live := f.mustIssuance(t, "live", 3, recipient{Step: StepUploaded})
	require.NoError(t, f.acts.mail().AttachWalletOffer(ctx, f.mustAssertion(t, live[0]), &n))
	require.Nil(t, n.Wallet)
	require.Empty(t, offers(live[0]))
}

// decodeQP undoes the soft line breaks and "=3D" of the quoted-printable text parts, enough to search them (the
// base64 parts keep their own "=" padding, which a strict decoder would refuse).
func decodeQP(t *testing.T, raw []byte) string {
	t.Helper()
	return strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(string(raw))
}
