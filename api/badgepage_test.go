package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestCancel_Reason: the optional body of a cancel; the reason shows in the public status.
func TestCancel_Reason(t *testing.T) {
	f := newListFixture(t)
	ctx := context.Background()
	_, err := f.d.Pool.Exec(ctx, "UPDATE assertions SET credential_key = 'credentials/x.json' WHERE id = ANY($1)",
		[]string{f.ids["bob"], f.ids["dave"]})
	require.NoError(t, err)
	cancel := func(id, body string) response {
		return f.doRaw(t, http.MethodPost, "/public/v3/assertions/"+id+"/cancel", f.keys["manager"], "application/json", strings.NewReader(body))
	}
	for _, c := range []struct{ name, body, code string }{
		{"too long", `{"reason":"` + strings.Repeat("가", 501) + `"}`, "COM006"},
		{"NUL", `{"reason":"a\u0000b"}`, "COM006"},
		{"invalid UTF-8", "{\"reason\":\"a\xffb\"}", "COM002"},
		{"not a string", `{"reason":5}`, "COM002"},
		{"unknown field", `{"why":"x"}`, "COM006"},
		{"not JSON", `reason`, "COM002"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := cancel(f.ids["bob"], c.body)
			requireError(t, r, "/public/v3/assertions/"+f.ids["bob"]+"/cancel", 400, c.code)
		})
	}
	status := func(id string) map[string]any {
		r := f.do(t, http.MethodGet, "/credentials/"+id+"/status", "", "")
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		return r.Body
	}
	require.Equal(t, "VALID", status(f.ids["bob"])["state"], "a refused cancel wrote nothing")

	reason := strings.Repeat("가", 499) + "끝"
	r := cancel(f.ids["bob"], `{"reason":"  `+reason+`  "}`)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	st := status(f.ids["bob"])
	require.Equal(t, "REVOKED", st["state"])
	require.Equal(t, reason, st["revocationReason"], "trimmed, 500 characters kept")
	require.NotNil(t, st["revokedAt"])
	require.Equal(t, baseURL+"/verify/"+f.ids["bob"], st["verifyUrl"])

	again := cancel(f.ids["bob"], `{"reason":"another"}`)
	require.Equal(t, 200, again.Status)
	require.Equal(t, reason, status(f.ids["bob"])["revocationReason"], "a repeated cancel keeps the first reason")

	r = f.do(t, http.MethodPost, "/public/v2/assertions/"+f.ids["dave"]+"/cancel", f.keys["manager"], "")
	require.Equal(t, 200, r.Status, "an empty body still cancels: %s", r.Raw)
	st = status(f.ids["dave"])
	require.Equal(t, "REVOKED", st["state"])
	require.Nil(t, st["revocationReason"])
}

// TestPublicPages_Unknown: an unknown badge is a 404 page for people and a 404 error body for programs; the
// certificate answers 404 for an unknown id and for a wrong or missing token alike.
func TestPublicPages_Unknown(t *testing.T) {
	f := newListFixture(t)
	for _, path := range []string{"/verify/" + uuid.NewString(), "/verify/not-a-uuid", "/verify/" + f.ids["carol"] /* FAILED */} {
		r := f.doRaw(t, http.MethodGet, path+"?lang=ko", "", "", nil)
		require.Equal(t, 404, r.Status, path)
		require.Contains(t, r.Header.Get("Content-Type"), "text/html")
		require.Contains(t, string(r.Raw), `<html lang="ko">`)
		require.Contains(t, string(r.Raw), "이 배지를 찾을 수 없습니다")
	}
	r := f.do(t, http.MethodGet, "/credentials/"+uuid.NewString(), "", "")
	require.Equal(t, 404, r.Status)
	require.NotNil(t, r.Body, "programs still get the error body: %s", r.Raw)

	ctx := context.Background()
	_, err := f.d.Pool.Exec(ctx, "UPDATE assertions SET credential_key = 'credentials/x.json' WHERE id = $1", f.ids["bob"])
	require.NoError(t, err)
	for _, q := range []string{"", "?token=", "?token=" + uuid.NewString(), "?token=garbage"} {
		r := f.do(t, http.MethodGet, "/credentials/"+f.ids["bob"]+"/certificate.pdf"+q, "", "")
		require.Equal(t, 404, r.Status, "token %q: %s", q, r.Raw)
		u := f.do(t, http.MethodGet, "/credentials/"+uuid.NewString()+"/certificate.pdf"+q, "", "")
		require.Equal(t, r.Body["error"].(map[string]any)["message"], u.Body["error"].(map[string]any)["message"],
			"a wrong token answers as an unknown id does")
	}
}
