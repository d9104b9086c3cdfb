package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/waitfor"
)

// response is a decoded answer of the server.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any // nil when the body is not a JSON object
}

// data is the contract's data object of a success.
func (r response) data(tb testing.TB) map[string]any {
	tb.Helper()
	require.Equal(tb, http.StatusOK, r.Status, "body: %s", r.Raw)
	d, ok := r.Body["data"].(map[string]any)
	require.True(tb, ok, "data is not an object: %s", r.Raw)
	return d
}

// errorCode is the contract's error.code of a failure.
func (r response) errorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// request sends a request to the stack; path is absolute on the server ("/public/v3/..."), key "" sends none.
func (s *stack) request(tb testing.TB, method, path, key string, header map[string]string, body io.Reader) response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, s.BaseURL+path, body)
	require.NoError(tb, err)
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := httpClient.Do(req)
	require.NoError(tb, err, "%s %s", method, path)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if strings.Contains(res.Header.Get("Content-Type"), "json") {
		_ = json.Unmarshal(raw, &out.Body)
	}
	return out
}

// get fetches a path (or a full URL under the stack's base URL) with optional Accept header.
func (s *stack) get(tb testing.TB, pathOrURL, key, accept string) response {
	tb.Helper()
	path := strings.TrimPrefix(pathOrURL, s.BaseURL)
	require.True(tb, strings.HasPrefix(path, "/"), "%s is not under %s", pathOrURL, s.BaseURL)
	h := map[string]string{}
	if accept != "" {
		h["Accept"] = accept
	}
	return s.request(tb, http.MethodGet, path, key, h, nil)
}

func (s *stack) postJSON(tb testing.TB, path, key string, header map[string]string, body string) response {
	tb.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return s.request(tb, http.MethodPost, path, key, h, strings.NewReader(body))
}

// tenant is an organization with a badge ready to issue: its keys, image, program and badge.
type tenant struct {
	Org     db.Organization
	Key     string // live manager key
	TestKey string // test-mode manager key
	Program string
	Badge   string
}

// mustTenant creates an organization with credits, live and test manager keys, and (through the API) an image,
// a program and a badge linked to it.
func (s *stack) mustTenant(tb testing.TB, credits int64) tenant {
	tb.Helper()
	ctx := context.Background()
	org, err := s.DB.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: "E2E 아카데미", Credits: credits})
	require.NoError(tb, err)
	t := tenant{Org: org, Key: s.mustKey(tb, org, apikey.ModeLive), TestKey: s.mustKey(tb, org, apikey.ModeTest)}
	image := s.mustUpload(tb, t.Key)
	t.Program = s.postJSON(tb, "/public/v3/programs", t.Key, nil,
		`{"name":"E2E program","categoryCode":"EDUCATION","imageId":"`+image+`"}`).data(tb)["id"].(string)
	t.Badge = s.postJSON(tb, "/public/v3/badges", t.Key, nil,
		`{"name":"E2E badge","description":"Awarded on completion","categoryCode":"COMPLETION",`+
			`"criteria":[{"category":"COMPLETION","value":"Finish all modules"}],`+
			`"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],"imageId":"`+image+`","programIds":["`+t.Program+`"]}`).data(tb)["id"].(string)
	return t
}

// mustKey stores a manager key of mode for org and returns its full text.
func (s *stack) mustKey(tb testing.TB, org db.Organization, mode string) string {
	tb.Helper()
	id := uuid.New()
	key, hash, err := apikey.New(id, mode)
	require.NoError(tb, err)
	_, err = s.DB.CreateAPIKey(context.Background(), db.CreateAPIKeyParams{ID: id, OrgID: org.ID, KeyHash: hash,
		Role: apikey.RoleManager, Mode: mode})
	require.NoError(tb, err)
	return key
}

// mustUpload uploads a small PNG through the API and returns its media id.
func (s *stack) mustUpload(tb testing.TB, key string) string {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x * 4), G: uint8(y * 4), B: 160, A: 255})
		}
	}
	var pngData, body bytes.Buffer
	require.NoError(tb, png.Encode(&pngData, img))
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("image", "badge.png")
	require.NoError(tb, err)
	_, err = part.Write(pngData.Bytes())
	require.NoError(tb, err)
	require.NoError(tb, w.Close())
	r := s.request(tb, http.MethodPost, "/public/v3/media-files/images", key,
		map[string]string{"Content-Type": w.FormDataContentType()}, &body)
	return r.data(tb)["id"].(string)
}

// recipientJSON is one recipient of a request body.
type recipientJSON struct {
	Name        string  `json:"name"`
	Email       *string `json:"email,omitempty"`
	PhoneNumber *string `json:"phoneNumber,omitempty"`
	ReceiveType string  `json:"receiveType"`
}

// emailRecipients are n EMAIL recipients named by prefix.
func emailRecipients(prefix string, n int) []recipientJSON {
	out := make([]recipientJSON, n)
	for i := range out {
		e := fmt.Sprintf("%s-%04d@example.com", prefix, i)
		out[i] = recipientJSON{Name: fmt.Sprintf("수령인 %d", i), Email: &e, ReceiveType: "EMAIL"}
	}
	return out
}

// issuanceBody is a request body; issuedAt "" leaves it out.
func issuanceBody(tb testing.TB, program string, rs []recipientJSON, issuedAt string) string {
	tb.Helper()
	body := map[string]any{"programId": program, "recipients": rs}
	if issuedAt != "" {
		body["issuedAt"] = issuedAt
	}
	b, err := json.Marshal(body)
	require.NoError(tb, err)
	return string(b)
}

// postIssuance posts an issuance of version v ("v2"/"v3") with an Idempotency-Key.
func (s *stack) postIssuance(tb testing.TB, v, key, badge, idemKey, body string) response {
	tb.Helper()
	return s.postJSON(tb, "/public/"+v+"/badges/"+badge+"/issuances", key, map[string]string{"Idempotency-Key": idemKey}, body)
}

// mustIssue posts an issuance that must be accepted and returns its id.
func (s *stack) mustIssue(tb testing.TB, v, key, badge, idemKey, body string) string {
	tb.Helper()
	d := s.postIssuance(tb, v, key, badge, idemKey, body).data(tb)
	require.Equal(tb, "PROCESSING", d["processingStatus"])
	return d["id"].(string)
}

// waitIssuance polls GET /issuances/{id} until it is COMPLETED or FAILED and returns its data.
func (s *stack) waitIssuance(tb testing.TB, v, key, id string, timeout time.Duration) map[string]any {
	tb.Helper()
	var d map[string]any
	waitfor.NoError(tb, timeout, 100*time.Millisecond, "issuance "+id+" to end", func() error {
		d = s.get(tb, "/public/"+v+"/issuances/"+id, key, "").data(tb)
		if st := d["processingStatus"]; st != "COMPLETED" && st != "FAILED" {
			return fmt.Errorf("still %v", st)
		}
		return nil
	})
	return d
}

// waitSendFailed waits until a notification of the issuance has failed once: a test that set an SMTP fault clears
// it then, so that the notification's retry delivers.
func (s *stack) waitSendFailed(tb testing.TB, issuance string) {
	tb.Helper()
	waitfor.True(tb, time.Minute, 10*time.Millisecond, "a failed send of issuance "+issuance, func() bool {
		return s.count(tb, `SELECT count(*) FROM notifications n JOIN assertions a ON a.id = n.assertion_id
			WHERE a.issuance_id = $1 AND n.last_error IS NOT NULL`, uuid.MustParse(issuance)) > 0
	})
}

// listAssertions reads every assertion of an issuance through GET /assertions, page by page.
func (s *stack) listAssertions(tb testing.TB, v, key, issuance string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for page := 1; ; page++ {
		d := s.get(tb, fmt.Sprintf("/public/%s/assertions?issuanceId=%s&size=100&page=%d&sort=createdAt,asc", v, issuance, page), key, "").data(tb)
		items, _ := d["items"].([]any)
		for _, it := range items {
			out = append(out, it.(map[string]any))
		}
		if p, _ := d["pagination"].(map[string]any); len(items) == 0 || p["last"] == true {
			return out
		}
	}
}

// getAssertion reads GET /assertions/{id}.
func (s *stack) getAssertion(tb testing.TB, v, key, id string) map[string]any {
	tb.Helper()
	return s.get(tb, "/public/"+v+"/assertions/"+id, key, "").data(tb)
}

// assertionRows are the stored assertions of an issuance in seq order.
func (s *stack) assertionRows(tb testing.TB, issuance string) []db.Assertion {
	tb.Helper()
	rows, err := s.DB.Pool.Query(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1 ORDER BY seq", uuid.MustParse(issuance))
	require.NoError(tb, err)
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		require.NoError(tb, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(tb, rows.Err())
	out := make([]db.Assertion, len(ids))
	for i, id := range ids {
		a, err := s.DB.GetAssertionByID(context.Background(), id)
		require.NoError(tb, err)
		out[i] = a
	}
	return out
}

// count runs a SELECT count(*) query.
func (s *stack) count(tb testing.TB, query string, args ...any) int {
	tb.Helper()
	var n int
	require.NoError(tb, s.DB.Pool.QueryRow(context.Background(), query, args...).Scan(&n), query)
	return n
}

// credits is the organization's balance.
func (s *stack) credits(tb testing.TB, org uuid.UUID) int64 {
	tb.Helper()
	var n int64
	require.NoError(tb, s.DB.Pool.QueryRow(context.Background(), "SELECT credits FROM organizations WHERE id = $1", org).Scan(&n))
	return n
}

func ptr[T any](v T) *T { return &v }
