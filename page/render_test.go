package page_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/page"
)

// syncBuffer is a log sink the server's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRender_PanicFreesItsSlot: a renderer that panics (injected by the test hook page.SetRenderFault) answers that
// request alone with the contract's 500, logs the panic with its stack, and gives its render slot back: after
// twice as many panicking certificates and previews as there are slots, both render again at once.
func TestRender_PanicFreesItsSlot(t *testing.T) {
	d := dbtest.New(t)
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	const base = "https://badged.example"
	var logs syncBuffer
	srv := httptest.NewServer(api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: base, Issuer: issuer.New(d, ring, base),
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}))
	t.Cleanup(srv.Close)

	// One issued assertion, written as the pipeline leaves it (its credential unsigned: the page cannot vouch for
	// it, and still draws its certificate and preview).
	ctx := context.Background()
	org, media, program, badge, iss, id := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO organizations (id, name) VALUES ($1, 'Acme Academy')`, []any{org}},
		{`INSERT INTO media_files (id, org_id, content_type, ext, width, height, size_bytes) VALUES ($1, $2, 'image/png', 'png', 64, 64, 100)`, []any{media, org}},
		{`INSERT INTO programs (id, org_id, name, category_code, image_id) VALUES ($1, $2, 'Program', 'OTHER', $3)`, []any{program, org, media}},
		{`INSERT INTO badges (id, org_id, name, description, criteria, category_code, image_id, skills)
		  VALUES ($1, $2, 'Go 101', 'Writes Go', '[]', 'OTHER', $3, '[]')`, []any{badge, org, media}},
		{`INSERT INTO issuances (id, org_id, badge_id, program_id, api_version, mode, idempotency_key, request_hash, issued_at,
		  processing_status, assertion_count, credits_debited, workflow_id) VALUES ($1, $2, $3, $4, 3, 'live', 'k', '\x00', now(), 'COMPLETED', 1, 1, 'wf')`,
			[]any{iss, org, badge, program}},
		{`INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number, recipient_name,
		  recipient_email, receive_type, state, issued_at, credential_key) VALUES ($1, $2, $3, $4, $5, 'live', 3, 0, 'S-1', '김하늘',
		  'sky@example.com', 'EMAIL', 'ISSUED', now(), $6)`, []any{id, org, iss, badge, program, "credentials/" + id.String() + ".json"}},
	} {
		_, err := d.Pool.Exec(ctx, q.sql, q.args...)
		require.NoError(t, err, q.sql)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	var pngBytes bytes.Buffer
	require.NoError(t, png.Encode(&pngBytes, img))
	_, err = store.PutIfAbsent(ctx, issuer.MediaKey(media.String(), "medium", "png"), pngBytes.Bytes(), "image/png")
	require.NoError(t, err)
	_, err = store.PutIfAbsent(ctx, "credentials/"+id.String()+".json", []byte(`{"id":"x"}`), "application/json")
	require.NoError(t, err)
	var token uuid.UUID
	require.NoError(t, d.Pool.QueryRow(ctx, "SELECT certificate_token FROM assertions WHERE id = $1", id).Scan(&token))

	get := func(path string) (int, []byte) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a render waiting for a lost slot fails, not hangs
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		res, err := srv.Client().Do(req)
		require.NoError(t, err, "GET %s", path)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, b
	}
	pdf := "/credentials/" + id.String() + "/certificate.pdf?token=" + token.String()
	preview := "/credentials/" + id.String() + "/preview.png"

	restore := page.SetRenderFault(func(renderer string) { panic("injected fault in the " + renderer) })
	for range 2 * 4 {
		for _, path := range []string{pdf, preview} {
			status, body := get(path)
			require.Equal(t, http.StatusInternalServerError, status, "%s: %s", path, body)
			var e struct {
				Success bool
				Error   struct{ Status int }
			}
			require.NoError(t, json.Unmarshal(body, &e), "%s", body)
			require.Equal(t, 500, e.Error.Status, "the contract's error body")
		}
	}
	restore()
	logged := logs.String()
	for _, want := range []string{`msg="renderer panicked" renderer=certificate panic="injected fault in the certificate"`,
		`msg="renderer panicked" renderer=preview panic="injected fault in the preview"`, "page.(*Handler).render"} {
		require.Contains(t, logged, want)
	}
	require.NotContains(t, logged, "msg=panic", "the renderer's panic ends in the render, not in the API's recoverer")

	status, body := get(pdf)
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.True(t, bytes.HasPrefix(body, []byte("%PDF-")))
	status, body = get(preview)
	require.Equal(t, http.StatusOK, status, "%s", body)
	card, err := png.Decode(bytes.NewReader(body))
	require.NoError(t, err)
	require.NotEqual(t, color.RGBA{}, color.RGBAModel.Convert(card.At(600, 300)))
	require.True(t, strings.HasPrefix(http.DetectContentType(body), "image/png"))
}
