package api_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/google/uuid"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// postIssuanceRaw posts body as is to the v3 issuance route of {badge}, with the given Content-Encoding ("" = none).
func (f *issFixture) postIssuanceRaw(tb testing.TB, idem, encoding string, body []byte) response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
		f.srv.URL+f.issuancePath("v3", "{badge}"), bytes.NewReader(body))
	require.NoError(tb, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", f.keys["manager"])
	req.Header.Set("Idempotency-Key", idem)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	res, err := f.srv.Client().Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &out.Body)
	}
	return out
}

func gzipped(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	require.NoError(tb, err)
	_, err = zw.Write(b)
	require.NoError(tb, err)
	require.NoError(tb, zw.Close())
	return buf.Bytes()
}

// TestIssuances_LargeRequests: issuances past the old limit of 10,000 recipients are accepted in one POST, as
// plain JSON and gzip-compressed; the same request sent compressed or not is one request to the idempotency rules;
// a body over the limit, sent or decompressed, is 413 COM006 and an unknown Content-Encoding 415 COM006, the
// contract's error body each time, with nothing written.
func TestIssuances_LargeRequests(t *testing.T) {
	f := newIssFixture(t)
	setCredits(t, f.d, f.org, 1_000_000)
	path := f.issuancePath("v3", "{badge}")

	body := []byte(f.expand(manyRecipients("{program}", 20_000)))
	r := f.postIssuanceRaw(t, "twenty-thousand", "", body)
	require.Equal(t, http.StatusOK, r.Status, "%.500s", r.Raw)
	data := r.Body["data"].(map[string]any)
	id := jstr(t, data, "id")
	require.Equal(t, float64(20_000), data["assertionCount"])
	require.Equal(t, int64(1_000_000-20_000), credits(t, f.d, f.org))
	// Above recipient.StageAbove (internal/recipient) the recipients are staged in slices of 500; their batches write the assertions.
	require.Zero(t, countRows(t, f.d, "assertions", f.org))
	require.Equal(t, 40, countWhere(t, f.d, "SELECT count(*) FROM issuance_recipient_slices WHERE issuance_id = $1", id))
	requireMaterialized(t, f, id, 20_000)

	t.Run("the same request gzip-compressed is its replay", func(t *testing.T) {
		r := f.postIssuanceRaw(t, "twenty-thousand", "gzip", gzipped(t, body))
		require.Equal(t, http.StatusOK, r.Status, "%.500s", r.Raw)
		require.Equal(t, id, jstr(t, r.Body["data"].(map[string]any), "id"))
		require.Equal(t, 20_000, countRows(t, f.d, "assertions", f.org))
		require.Len(t, f.starter.calls(), 1)
	})
	t.Run("another request under the key is ISS057, compressed or not", func(t *testing.T) {
		other := []byte(f.expand(manyRecipients("{program}", 20_001)))
		requireError(t, f.postIssuanceRaw(t, "twenty-thousand", "gzip", gzipped(t, other)), path, http.StatusConflict, "ISS057")
		requireError(t, f.postIssuanceRaw(t, "twenty-thousand", "", other), path, http.StatusConflict, "ISS057")
	})
	t.Run("a new key with a gzip body is a new issuance", func(t *testing.T) {
		small := []byte(f.expand(manyRecipients("{program}", 3)))
		r := f.postIssuanceRaw(t, "gzip-new", "gzip", gzipped(t, small))
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		require.Equal(t, float64(3), r.Body["data"].(map[string]any)["assertionCount"])
	})

	before := credits(t, f.d, f.org)
	assertions := countRows(t, f.d, "assertions", f.org)
	t.Run("more than 100,000 recipients", func(t *testing.T) {
		r := f.postIssuanceRaw(t, "too-many", "gzip", gzipped(t, []byte(f.expand(manyRecipients("{program}", 100_001)))))
		requireError(t, r, path, http.StatusBadRequest, "COM006", "recipients")
	})
	t.Run("a body over 32 MiB", func(t *testing.T) {
		big := bytes.Repeat([]byte(" "), 32<<20+1)
		requireError(t, f.postIssuanceRaw(t, "too-large", "", big), path, http.StatusRequestEntityTooLarge, "COM006")
	})
	t.Run("a gzip body over 32 MiB once decompressed", func(t *testing.T) {
		bomb := gzipped(t, append(bytes.Repeat([]byte(" "), 40<<20), body...))
		require.Less(t, len(bomb), 1<<20)
		requireError(t, f.postIssuanceRaw(t, "bomb", "gzip", bomb), path, http.StatusRequestEntityTooLarge, "COM006")
	})
	t.Run("a body that is not gzip", func(t *testing.T) {
		requireError(t, f.postIssuanceRaw(t, "not-gzip", "gzip", body[:1000]), path, http.StatusBadRequest, "COM002")
		requireError(t, f.postIssuanceRaw(t, "cut-gzip", "gzip", gzipped(t, body)[:5000]), path, http.StatusBadRequest, "COM002")
	})
	t.Run("another Content-Encoding", func(t *testing.T) {
		r := f.postIssuanceRaw(t, "brotli", "br", body)
		requireError(t, r, path, http.StatusUnsupportedMediaType, "COM006", "Content-Encoding")
	})
	require.Equal(t, before, credits(t, f.d, f.org))
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org))
}

// BenchmarkCreateIssuance100k times one POST of 100,000 recipients (plain JSON and gzip) from the request to the
// answer: read, decode, validation, request hash, the transaction with its COPY of the assertion rows. The server
// is the handler alone (no contract check on the side). Run it once with a profile:
//
//	go test -run '^$' -bench CreateIssuance100k -benchtime 3x -cpuprofile /tmp/post.prof ./api/
func BenchmarkCreateIssuance100k(b *testing.B) {
	f := newIssFixture(b)
	setCredits(b, f.d, f.org, 1<<40)
	srv := httptest.NewServer(newIssuanceHandler(b, f.d, f.starter, f.clock.Now))
	b.Cleanup(srv.Close)
	body := []byte(f.expand(manyRecipients("{program}", 100_000)))
	for _, enc := range []string{"", "gzip"} {
		send := body
		if enc == "gzip" {
			send = gzipped(b, body)
		}
		b.Run("encoding="+cmp.Or(enc, "identity"), func(b *testing.B) {
			b.SetBytes(int64(len(send)))
			for i := range b.N {
				req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
					srv.URL+f.issuancePath("v3", "{badge}"), bytes.NewReader(send))
				require.NoError(b, err)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-API-KEY", f.keys["manager"])
				req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%s-%d-%d", enc, b.N, i))
				if enc != "" {
					req.Header.Set("Content-Encoding", enc)
				}
				res, err := srv.Client().Do(req)
				require.NoError(b, err)
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				require.Equal(b, http.StatusOK, res.StatusCode, "%.300s", raw)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/POST")
		})
	}
}

func countWhere(tb testing.TB, d *db.DB, query string, args ...any) int {
	tb.Helper()
	var n int
	require.NoError(tb, d.Pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// requireMaterialized runs LoadBatch over the issuance's batches (the first twice, as a retry would) and checks
// the assertions it wrote: one per recipient, in request order, consecutive serials, the recipients as normalized.
func requireMaterialized(tb testing.TB, f *issFixture, issuance string, n int) {
	tb.Helper()
	ctx := context.Background()
	acts := &activities.Activities{DB: f.d}
	iid := uuid.MustParse(issuance)
	for from := 0; from < n; from += 500 {
		res, err := acts.LoadBatch(ctx, activities.LoadBatchInput{IssuanceID: iid, FromSeq: from, ToSeq: min(from+500, n)})
		require.NoError(tb, err)
		require.Len(tb, res.Recipients, min(500, n-from))
		require.Equal(tb, from, res.Recipients[0].Seq)
		if from == 0 {
			again, err := acts.LoadBatch(ctx, activities.LoadBatchInput{IssuanceID: iid, FromSeq: 0, ToSeq: 500})
			require.NoError(tb, err)
			require.Equal(tb, res, again)
		}
	}
	require.Zero(tb, countWhere(tb, f.d, "SELECT count(*) FROM issuance_recipient_slices WHERE issuance_id = $1", iid))
	rows, err := f.d.Pool.Query(ctx, `SELECT seq, serial_number, recipient_name, recipient_email, receive_type, state, mode
		FROM assertions WHERE issuance_id = $1 ORDER BY seq`, iid)
	require.NoError(tb, err)
	defer rows.Close()
	numbers := serialNumberer(tb, f.d, f.org.ID)
	var first int64
	i := 0
	for rows.Next() {
		var seq int
		var serial, name, email, kind, state, mode string
		require.NoError(tb, rows.Scan(&seq, &serial, &name, &email, &kind, &state, &mode))
		require.Equal(tb, i, seq)
		require.Equal(tb, fmt.Sprintf("R %d", i), name)
		require.Equal(tb, fmt.Sprintf("r%d@example.com", i), email)
		require.Equal(tb, []string{"EMAIL", "PROCESSING", "live"}, []string{kind, state, mode})
		k, ok := numbers.Counter(serial)
		require.True(tb, ok, "%s is a serial of the organization's key", serial)
		if i == 0 {
			first = k
		}
		require.Equal(tb, first+int64(i), k, "consecutive counters: the POST reserved them, the batches numbered them")
		i++
	}
	require.NoError(tb, rows.Err())
	require.Equal(tb, n, i)
}
