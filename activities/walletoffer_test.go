package activities

import (
	"bytes"
	"context"
	"crypto/tls"
	stdpng "image/png"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/oid4vci"
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

	_, v3 := f.mustIssuance(t, "live", 3, recipient{Name: "Jane Doe", Step: StepPublished})
	_, v2 := f.mustIssuance(t, "live", 2, recipient{Name: "John Roe", Step: StepPublished})
	row := func(id uuid.UUID) db.ListPipelineAssertionsRow {
		rows, err := f.DB.ListPipelineAssertions(ctx, []uuid.UUID{id})
		require.NoError(t, err)
		require.Len(t, rows, 1)
		return rows[0]
	}
	send := func(id uuid.UUID) error {
		r := row(id)
		offers, err := f.acts.mail().WalletOffers(ctx, []db.Assertion{r.Assertion})
		require.NoError(t, err)
		return f.acts.send(ctx, r, offers[id])
	}
	require.NoError(t, send(v3[0]))
	require.NoError(t, send(v2[0]))
	// A retry after a lost answer sends again: the same offer, not a second one.
	require.NoError(t, send(v3[0]))
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
		require.Equal(t, link, scanMailQR(t, m.Data), "a phone scanning the mail's QR code opens the wallet on the offer")
	}
	require.NotContains(t, decodeQP(t, msgs[1].Data), "openid-credential-offer")

	// Test mode, and an organization that turned wallet offers off: no offer.
	_, test := f.mustIssuance(t, "test", 3, recipient{Step: StepPublished})
	n := notify.Notification{}
	require.NoError(t, f.acts.mail().AttachWalletOffer(ctx, f.mustAssertion(t, test[0]), &n))
	require.Nil(t, n.Wallet)
	off := false
	_, err = f.DB.UpdateOrganizationProfile(ctx, db.UpdateOrganizationProfileParams{ID: f.OrgID, WalletOffers: &off})
	require.NoError(t, err)
	_, live := f.mustIssuance(t, "live", 3, recipient{Step: StepPublished})
	require.NoError(t, f.acts.mail().AttachWalletOffer(ctx, f.mustAssertion(t, live[0]), &n))
	require.Nil(t, n.Wallet)
	require.Empty(t, offers(live[0]))
}

// scanMailQR finds the part of a MIME message whose Content-ID is the wallet QR code's, decodes its PNG and reads
// the code with a decoder (ZXing's, as gozxing ports it).
func scanMailQR(t *testing.T, raw []byte) string {
	t.Helper()
	_, parts, err := smtptest.Parts(raw)
	require.NoError(t, err)
	i := slices.IndexFunc(parts, func(p smtptest.Part) bool { return p.ContentID == "wallet-qr@badged" })
	require.GreaterOrEqual(t, i, 0, "no part with Content-ID <wallet-qr@badged>")
	img, err := stdpng.Decode(bytes.NewReader(parts[i].Body))
	require.NoError(t, err)
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	require.NoError(t, err)
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	require.NoError(t, err)
	return res.GetText()
}

// decodeQP undoes the soft line breaks and "=3D" of the quoted-printable text parts, enough to search them (the
// base64 parts keep their own "=" padding, which a strict decoder would refuse).
func decodeQP(t *testing.T, raw []byte) string {
	t.Helper()
	return strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(string(raw))
}

// TestNotify_WalletOfferLapsed: a message sent after the notification offer's lifetime (oid4vci.OfferTTL; the
// offer's expires_at is put in the past, the database's clock decides) carries a fresh offer, so its link works;
// the lapsed one stays, expired, and later messages link the fresh one. An offer that was used or withdrawn, and
// the offer of a cancelled (REVOKED) assertion, are not replaced.
func TestNotify_WalletOfferLapsed(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	f.acts.Issuer = issuer.New(f.DB, nil, "https://badges.example")
	_, ids := f.mustIssuance(t, "live", 3, recipient{Name: "Jane Doe", State: "ISSUED", Step: StepNotified},
		recipient{Name: "Used Offer", State: "ISSUED", Step: StepNotified},
		recipient{Name: "Withdrawn Offer", State: "ISSUED", Step: StepNotified},
		recipient{Name: "Cancelled", State: "ISSUED", Step: StepNotified})
	offer := func(id uuid.UUID) (uuid.UUID, *notify.WalletOffer) {
		t.Helper()
		var n notify.Notification
		require.NoError(t, f.acts.mail().AttachWalletOffer(ctx, f.mustAssertion(t, id), &n))
		require.NotNil(t, n.Wallet)
		o, err := uuid.Parse(n.Wallet.PageURL[len("https://badges.example/oid4vci/offers/"):][:36])
		require.NoError(t, err)
		return o, n.Wallet
	}
	lapse := func(o uuid.UUID, also string) {
		t.Helper()
		_, err := f.DB.Pool.Exec(ctx, `UPDATE credential_offers SET expires_at = now() - interval '1 second'`+also+` WHERE id = $1`, o)
		require.NoError(t, err)
	}
	live := func(o uuid.UUID) db.GetLiveOfferRow {
		t.Helper()
		r, err := f.DB.GetLiveOffer(ctx, o)
		require.NoError(t, err)
		return r
	}

	first, _ := offer(ids[0])
	same, _ := offer(ids[0])
	require.Equal(t, first, same, "within its lifetime a resend links the same offer")
	lapse(first, "")
	fresh, w := offer(ids[0])
	require.NotEqual(t, first, fresh, "a resend after the lifetime links a fresh offer")
	require.Contains(t, w.Link, fresh.String())
	fo := live(fresh)
	require.True(t, fo.CredentialOffer.ExpiresAt.After(fo.DbNow.Add(oid4vci.OfferTTL-time.Hour)), "a full lifetime ahead")
	require.Equal(t, fo.CredentialOffer.ExpiresAt.UTC(), w.ExpiresAt.UTC())
	old := live(first)
	require.False(t, old.CredentialOffer.ExpiresAt.After(old.DbNow), "the lapsed offer stays expired")
	require.Nil(t, old.CredentialOffer.UsedAt)
	again, _ := offer(ids[0])
	require.Equal(t, fresh, again, "one live offer per assertion: later messages link the fresh one")
	var n int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM credential_offers WHERE assertion_id = $1`, ids[0]).Scan(&n))
	require.Equal(t, 2, n)

	// Used, withdrawn, or of a cancelled assertion: the lapsed offer is linked as it is, no new one.
	used, _ := offer(ids[1])
	lapse(used, ", used_at = now() - interval '2 days', used_by_token = 'tok'")
	withdrawn, _ := offer(ids[2])
	lapse(withdrawn, ", withdrawn_at = now() - interval '2 days'")
	cancelled, _ := offer(ids[3])
	lapse(cancelled, "")
	_, err := f.DB.Pool.Exec(ctx, `UPDATE assertions SET state = 'REVOKED', revoked_at = now() WHERE id = $1`, ids[3])
	require.NoError(t, err)
	for i, want := range map[int]uuid.UUID{1: used, 2: withdrawn, 3: cancelled} {
		got, _ := offer(ids[i])
		require.Equal(t, want, got, "recipient %d", i)
		require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM credential_offers WHERE assertion_id = $1`, ids[i]).Scan(&n))
		require.Equal(t, 1, n, "recipient %d", i)
	}
}

// TestNotify_WalletOffersPerChunk: EnsureNotificationOffers answers for a whole chunk in one statement: a new
// offer (with the id given) for a recipient without one, the same offer for one that has one, also on a retry, and
// a lapsed one reported lapsed; the notify step sends it once for the chunk (and once more for the lapsed offer it
// replaces, which stays per recipient). An organization that turned wallet offers off gets no rows, and no offer
// is created.
func TestNotify_WalletOffersPerChunk(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	f.acts.Issuer = issuer.New(f.DB, nil, "https://badges.example")
	_, ids := f.mustIssuance(t, "live", 3, recipient{Step: StepPublished}, recipient{Step: StepPublished},
		recipient{Step: StepPublished})
	_, v2 := f.mustIssuance(t, "live", 2, recipient{Step: StepPublished})
	fresh, existing, lapsed := ids[0], ids[1], ids[2]
	all := append(append([]uuid.UUID{}, ids...), v2...)
	ensure := func(as ...uuid.UUID) (map[uuid.UUID]db.EnsureNotificationOffersRow, []uuid.UUID) {
		t.Helper()
		p := db.EnsureNotificationOffersParams{OrgID: f.OrgID, AssertionIds: as, Mode: "live",
			TtlSeconds: int32(oid4vci.OfferTTL / time.Second)}
		for range as {
			p.Ids = append(p.Ids, uuid.New())
		}
		rows, err := f.DB.EnsureNotificationOffers(ctx, p)
		require.NoError(t, err)
		out := map[uuid.UUID]db.EnsureNotificationOffersRow{}
		for _, r := range rows {
			out[r.AssertionID] = r
		}
		require.Len(t, out, len(rows), "one row per assertion")
		return out, p.Ids
	}
	offerCount := func() int {
		t.Helper()
		var n int
		require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM credential_offers WHERE assertion_id = ANY($1)`,
			all).Scan(&n))
		return n
	}

	before, _ := ensure(existing, lapsed)
	require.Len(t, before, 2)
	_, err := f.DB.Pool.Exec(ctx, `UPDATE credential_offers SET expires_at = now() - interval '1 second' WHERE id = $1`,
		before[lapsed].ID)
	require.NoError(t, err)
	got, minted := ensure(fresh, existing, lapsed)
	require.Len(t, got, 3)
	require.Equal(t, minted[0], got[fresh].ID, "a new offer takes the id given")
	require.False(t, got[fresh].Lapsed)
	require.WithinDuration(t, time.Now().Add(oid4vci.OfferTTL), got[fresh].ExpiresAt, time.Minute)
	require.Equal(t, before[existing].ID, got[existing].ID, "an existing offer is returned, not replaced")
	require.False(t, got[existing].Lapsed)
	require.Equal(t, before[lapsed].ID, got[lapsed].ID)
	require.True(t, got[lapsed].Lapsed)
	again, _ := ensure(fresh, existing, lapsed)
	for _, id := range []uuid.UUID{fresh, existing, lapsed} {
		require.Equal(t, got[id].ID, again[id].ID, "a retry returns the same offer")
		require.Equal(t, got[id].Lapsed, again[id].Lapsed)
	}
	require.Equal(t, 3, offerCount())

	// The notify step on the chunk (and a v2 recipient, who gets no offer): one statement for the chunk's offers.
	count := &statementCounter{byName: map[string]int{}}
	traced := tracedDB(t, f.DB, count)
	f.acts.DB = traced
	kept := &keptSender{}
	f.acts.Outbox = kept
	failed, err := f.acts.onChunk(StepPublished, f.acts.notifyRecipients)(ctx, all)
	require.NoError(t, err)
	require.Empty(t, failed)
	require.Equal(t, 2, count.byName["EnsureNotificationOffers"], "one for the chunk, one for the lapsed offer's successor")
	require.Equal(t, 1, count.byName["RetireLapsedNotificationOffer"])
	sent := kept.byAssertion()
	require.Len(t, sent, 4)
	require.Contains(t, sent[fresh.String()].Wallet.PageURL, got[fresh].ID.String())
	require.Contains(t, sent[existing.String()].Wallet.PageURL, got[existing].ID.String())
	require.NotContains(t, sent[lapsed.String()].Wallet.PageURL, got[lapsed].ID.String(), "a lapsed offer is replaced")
	require.Nil(t, sent[v2[0].String()].Wallet)
	require.Equal(t, 4, offerCount(), "the lapsed offer stays beside its successor")

	// Wallet offers turned off: no rows, nothing created.
	off := false
	_, err = f.DB.UpdateOrganizationProfile(ctx, db.UpdateOrganizationProfileParams{ID: f.OrgID, WalletOffers: &off})
	require.NoError(t, err)
	_, more := f.mustIssuance(t, "live", 3, recipient{Step: StepPublished})
	none, _ := ensure(fresh, existing, more[0])
	require.Empty(t, none)
	offers, err := f.acts.mail().WalletOffers(ctx, []db.Assertion{f.mustAssertion(t, fresh), f.mustAssertion(t, more[0])})
	require.NoError(t, err)
	require.Empty(t, offers)
	var n int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM credential_offers WHERE assertion_id = $1`, more[0]).Scan(&n))
	require.Zero(t, n)
}

// keptSender keeps the messages it is given (the notify step sends from several goroutines).
type keptSender struct {
	mu  sync.Mutex
	got []notify.Notification
}

func (k *keptSender) Send(_ context.Context, n notify.Notification) (notify.Receipt, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.got = append(k.got, n)
	return notify.Receipt{Channel: n.Channel}, nil
}

func (k *keptSender) byAssertion() map[string]notify.Notification {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]notify.Notification{}
	for _, n := range k.got {
		out[n.AssertionID] = n
	}
	return out
}
