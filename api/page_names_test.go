package api_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBadgePage_StoredNamesShownHarmlessly: names stored before the API refused control and bidirectional override
// characters (or written by hand) show on the badge page as one plain line: no override character reaches the
// page from a name, a line break becomes a space, and the cancel reason in the verdict sentence likewise.
func TestBadgePage_StoredNamesShownHarmlessly(t *testing.T) {
	f := newListFixture(t)
	ctx := context.Background()
	id := f.ids["bob"]
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE assertions SET credential_key = 'credentials/x.json', state = 'REVOKED', revoked_at = now(),
			revocation_reason = $2, recipient_name = $3 WHERE id = $1`,
			[]any{id, "Issued in error \u202eyldnik\u202c.", "Bob \u202etxet\r\nLee"}},
		{`UPDATE badges SET name = $2 WHERE id = $1`, []any{f.vars["{badge}"], "Go\u2067 Expert\u2069\nII"}},
		{`UPDATE organizations SET name = $2 WHERE id = $1`, []any{f.org.ID, "Acme\u202b Academy\t"}},
		{`UPDATE programs SET name = $2 WHERE id = $1`, []any{f.vars["{program}"], "Fixture\u202d program"}},
	} {
		_, err := f.d.Pool.Exec(ctx, q.sql, q.args...)
		require.NoError(t, err)
	}
	for _, lang := range []string{"en", "ko"} {
		r := f.doRaw(t, http.MethodGet, "/verify/"+id+"?lang="+lang, "", "", nil)
		require.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"))
		page := string(r.Raw)
		require.NotRegexp(t, regexp.MustCompile("[\u202a-\u202e\u2066-\u2069]"), page, "no bidirectional control from a name")
		for _, shown := range []string{"Bob txet  Lee", "Go Expert II", "Acme Academy", "Fixture program", "Issued in error yldnik."} {
			require.Contains(t, page, shown, lang)
		}
		require.NotContains(t, page, "\r", "no CR from a name")
	}
}
