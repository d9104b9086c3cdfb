package api_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	badged "github.com/badged/badged/client/v3"
)

// newTestClient is the typed v3 client (client/v3) against srv with key.
func newTestClient(t *testing.T, url, key string) *badged.ClientWithResponses {
	t.Helper()
	c, err := badged.NewClientWithResponses(url+"/public/v3", badged.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error { r.Header.Set("X-API-KEY", key); return nil }))
	require.NoError(t, err)
	return c
}

// TestClientHelpers_AgainstTheServer: the client's hand-written helpers against the real API handler and database:
// the multipart upload, the issuance and dry-run answers that cannot be mistaken, and the typed APIError.
func TestClientHelpers_AgainstTheServer(t *testing.T) {
	f := newIssFixture(t)
	ctx := t.Context()
	c := newTestClient(t, f.srv.URL, f.keys["manager"])

	img, err := c.UploadImage(ctx, "badge.png", bytes.NewReader(mustPNG(t, 40, 40, false)))
	require.NoError(t, err)
	require.NotEqual(t, uuid.Nil, img.Id)
	require.NotEmpty(t, img.Urls.Original)

	badgeID, programID := uuid.MustParse(f.vars["{badge}"]), uuid.MustParse(f.vars["{program}"])
	email := "kit@example.com"
	req := badged.IssuanceRequest{ProgramId: programID, Recipients: []badged.RecipientInput{
		{Name: "Kit", Email: &email, ReceiveType: badged.ReceiveTypeEMAIL}}}

	// The generated union decodes a dry run's body as an issuance with a zero id: the trap the helpers close.
	dryTrue := true
	raw, err := c.CreateIssuanceWithResponse(ctx, badgeID, &badged.CreateIssuanceParams{IdempotencyKey: "kit-1", DryRun: &dryTrue}, req)
	require.NoError(t, err)
	mistaken, err := raw.JSON200.AsIssuanceResponse()
	require.NoError(t, err)
	require.Equal(t, uuid.Nil, mistaken.Data.Id)
	res, err := raw.Result()
	require.NoError(t, err)
	require.Nil(t, res.Issuance)
	require.NotNil(t, res.DryRun)

	dry, err := c.DryRunIssuance(ctx, badgeID, "kit-1", req)
	require.NoError(t, err)
	require.True(t, dry.WouldSucceed, "%+v", dry.Problems)
	require.Equal(t, 1, dry.CreditsRequired)

	iss, err := c.IssueBadge(ctx, badgeID, "kit-1", req)
	require.NoError(t, err)
	require.NotEqual(t, uuid.Nil, iss.Id)
	require.Equal(t, badged.IssuanceProcessingStatusPROCESSING, iss.ProcessingStatus)
	again, err := c.IssueBadge(ctx, badgeID, "kit-1", req)
	require.NoError(t, err)
	require.Equal(t, iss.Id, again.Id, "a replay answers the same issuance")

	// Another request under the key is a typed error, with the code, the field-free message and the request id.
	other := req
	other.Recipients = append(other.Recipients, badged.RecipientInput{Name: "Other", Email: &email, ReceiveType: badged.ReceiveTypeEMAIL})
	_, err = c.IssueBadge(ctx, badgeID, "kit-1", other)
	var ae *badged.APIError
	require.True(t, errors.As(err, &ae), "%v", err)
	require.Equal(t, http.StatusConflict, ae.StatusCode)
	require.Equal(t, "ISS057", ae.Code)
	require.NotEmpty(t, ae.RequestID)

	_, err = c.DryRunIssuance(ctx, uuid.New(), "kit-2", req)
	require.True(t, errors.As(err, &ae), "%v", err)
	require.Equal(t, "BDG001", ae.Code)
	require.Equal(t, http.StatusNotFound, ae.StatusCode)
}

// TestClientWaitIssuance_HonoursRetryAfter: WaitIssuance polls until the issuance leaves PROCESSING, and a 429 is
// waited out for exactly its Retry-After before the next poll (the limiter's clock moves only when the client
// waits, so a poll sent early would be refused again).
func TestClientWaitIssuance_HonoursRetryAfter(t *testing.T) {
	f := newIssFixture(t)
	ctx := t.Context()
	var mu sync.Mutex
	rateNow := time.Now()
	rateClock := func() time.Time { mu.Lock(); defer mu.Unlock(); return rateNow }
	deps := issuanceDeps(t, f.d, f.starter, f.clock.Now)
	deps.RateLimit, deps.RateClock = api.RateLimit{PerSecond: 0.001, Burst: 2}, rateClock // one token per 1000 s
	srv := startServer(t, api.NewHandler(deps))
	c := newTestClient(t, srv.URL, f.keys["manager"])

	email := "wait@example.com"
	iss, err := c.IssueBadge(ctx, uuid.MustParse(f.vars["{badge}"]), "wait-1", badged.IssuanceRequest{
		ProgramId: uuid.MustParse(f.vars["{program}"]), Recipients: []badged.RecipientInput{
			{Name: "Wait", Email: &email, ReceiveType: badged.ReceiveTypeEMAIL}}}) // token 1 of 2
	require.NoError(t, err)

	var waits []time.Duration
	sleep := func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		mu.Lock()
		rateNow = rateNow.Add(d)
		mu.Unlock()
		if len(waits) == 2 { // the issuance finishes while the client waits out the 429
			_, err := f.d.Pool.Exec(ctx, `UPDATE issuances SET processing_status = 'COMPLETED' WHERE id = $1`, iss.Id)
			return err
		}
		return nil
	}
	done, err := c.WaitIssuance(ctx, iss.Id, badged.WaitOptions{Interval: 250 * time.Millisecond, Sleep: sleep})
	require.NoError(t, err)
	require.Equal(t, badged.IssuanceProcessingStatusCOMPLETED, done.ProcessingStatus)
	require.Len(t, waits, 2, "poll (PROCESSING), wait the interval, poll (429), wait Retry-After, poll (COMPLETED)")
	require.Equal(t, 250*time.Millisecond, waits[0])
	require.InDelta(t, 1000, waits[1].Seconds(), 5, "the 429's Retry-After")

	// Any other error ends the wait with the typed error.
	_, err = c.WaitIssuance(ctx, uuid.New(), badged.WaitOptions{Sleep: sleep})
	var ae *badged.APIError
	require.True(t, errors.As(err, &ae), "%v", err)
	require.Equal(t, "ISS001", ae.Code)
}
