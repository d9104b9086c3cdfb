package earner_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/earner"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/internal/waitfor"
)

// stack is the API twice over one database (two processes behind a balancer), each with its own sign-in mailer
// sending to the test SMTP server.
type stack struct {
	env   *apitest.Env
	smtp  *smtptest.Server
	srv   [2]*httptest.Server
	tally *stats.Tally
}

func newStack(t testing.TB, perAddress int) *stack {
	t.Helper()
	env := apitest.New(t)
	st := &stack{env: env, smtp: smtptest.Start(t, smtptest.Options{}), tally: stats.NewTally(env.DB, nil, nil)}
	for i := range st.srv {
		sender, err := notify.NewSMTP(notify.SMTPConfig{Host: st.smtp.Host, Port: st.smtp.Port, TLS: notify.TLSMandatory,
			From: "Badged <noreply@badged.example>", Timeout: 5 * time.Second,
			TLSConfig: &tls.Config{RootCAs: st.smtp.RootCAs, MinVersion: tls.VersionTLS12}})
		require.NoError(t, err)
		mailer := signin.NewMailer(sender, nil, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { mailer.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done; _ = sender.Close() })
		st.srv[i] = env.ServerWith(t, func(d *api.Deps) {
			c := earner.SignInConfig(env.DB)
			c.BaseURL, c.Mailer, c.PerAddress = apitest.BaseURL, mailer, perAddress
			svc, err := signin.New(c)
			require.NoError(t, err)
			d.SignIn = api.SignIn{Service: svc, Tally: st.tally}
		})
	}
	return st
}

// browser is a client with its own cookies that does not follow redirects.
func browser(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type answer struct {
	status int
	body   string
	header http.Header
}

func do(t testing.TB, c *http.Client, method, u string, form url.Values) answer {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return answer{res.StatusCode, string(b), res.Header}
}

var (
	linkRE = regexp.MustCompile(`/earner/sign-in/([A-Za-z0-9_-]{43})`)
	csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

// tokens are the sign-in tokens mailed to address so far.
func (st *stack) tokens(t testing.TB, address string) []string {
	var out []string
	for _, m := range st.smtp.Messages() {
		if len(m.To) != 1 || m.To[0] != address {
			continue
		}
		_, parts, err := smtptest.Parts(m.Data)
		require.NoError(t, err)
		for _, p := range parts {
			if mm := linkRE.FindStringSubmatch(string(p.Body)); mm != nil {
				out = append(out, mm[1])
			}
		}
	}
	return out
}

// signIn asks for a link on server 0, follows it on server 1 and returns the browser and its CSRF token.
func (st *stack) signIn(t testing.TB, address string) (*http.Client, string) {
	t.Helper()
	c := browser(t)
	before := len(st.tokens(t, address))
	a := do(t, c, http.MethodPost, st.srv[0].URL+"/earner/sign-in", url.Values{"email": {address}})
	require.Equal(t, http.StatusOK, a.status, a.body)
	var token string
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the sign-in mail", func() bool {
		if ts := st.tokens(t, address); len(ts) > before {
			token = ts[len(ts)-1]
		}
		return token != ""
	})
	a = do(t, c, http.MethodGet, st.srv[1].URL+"/earner/sign-in/"+token, nil)
	require.Equal(t, http.StatusOK, a.status) // the confirm page: a GET spends nothing
	a = do(t, c, http.MethodPost, st.srv[1].URL+"/earner/sign-in/"+token, url.Values{})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	home := do(t, c, http.MethodGet, st.srv[0].URL+"/earner", nil)
	require.Equal(t, http.StatusOK, home.status)
	m := csrfRE.FindStringSubmatch(home.body)
	require.NotNil(t, m, "the collection has forms")
	return c, m[1]
}

func TestEarner_SignInAnswersAlikeAndLinkWorksOnce(t *testing.T) {
	st := newStack(t, 5)
	id := st.env.IssueSigned(t, "Jane Doe", "jane@example.org")
	anon := browser(t)

	form := do(t, anon, http.MethodGet, st.srv[0].URL+"/earner", nil)
	require.Equal(t, http.StatusOK, form.status)
	require.Contains(t, form.body, `name="email"`)

	known := do(t, anon, http.MethodPost, st.srv[0].URL+"/earner/sign-in", url.Values{"email": {"jane@example.org"}})
	unknown := do(t, anon, http.MethodPost, st.srv[1].URL+"/earner/sign-in", url.Values{"email": {"nobody@example.org"}})
	require.Equal(t, http.StatusOK, known.status)
	require.Equal(t, known.status, unknown.status)
	require.Equal(t, known.body, unknown.body, "the same page for a known and an unknown address")
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the first mail", func() bool { return len(st.tokens(t, "jane@example.org")) == 1 })

	for _, bad := range []string{"", "jane", "jane@example", "a@b.c\r\nBcc: x@y.z", strings.Repeat("a", 10<<10) + "@example.org", "jane\x00@example.org"} {
		a := do(t, anon, http.MethodPost, st.srv[0].URL+"/earner/sign-in", url.Values{"email": {bad}})
		require.Equal(t, http.StatusBadRequest, a.status, "%q", bad)
		require.Contains(t, a.body, `aria-invalid="true"`)
	}

	c, _ := st.signIn(t, "jane@example.org")
	home := do(t, c, http.MethodGet, st.srv[1].URL+"/earner", nil)
	require.Contains(t, home.body, "Team lead")
	require.Contains(t, home.body, "b-"+id.String())
	require.Empty(t, st.tokens(t, "nobody@example.org"), "no mail to an address with nothing issued")

	// The link is spent: a second press, on either process, is a clear page with a fresh form.
	all := st.tokens(t, "jane@example.org")
	token := all[len(all)-1] // the one signIn followed
	for _, srv := range st.srv {
		a := do(t, browser(t), http.MethodPost, srv.URL+"/earner/sign-in/"+token, url.Values{})
		require.Equal(t, http.StatusGone, a.status)
		require.Contains(t, a.body, `name="email"`)
	}
	// The signed-in pages are never stored, and keep the referrer same-origin: "no-referrer" made Chromium post the
	// link's button with "Origin: null", which the origin check refuses (403), while a foreign origin stays refused.
	require.Equal(t, "no-store", home.header.Get("Cache-Control"))
	require.Equal(t, "same-origin", home.header.Get("Referrer-Policy"))
	confirm := do(t, browser(t), http.MethodGet, st.srv[0].URL+"/earner/sign-in/"+token, nil)
	require.Equal(t, http.StatusOK, confirm.status)
	require.Equal(t, "same-origin", confirm.header.Get("Referrer-Policy"))
	require.Equal(t, "no-store", confirm.header.Get("Cache-Control"))
	req, err := http.NewRequest(http.MethodPost, st.srv[0].URL+"/earner/sign-in/"+token, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://evil.example")
	res, err := browser(t).Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	// Forged and malformed links and cookies open nothing.
	a := do(t, browser(t), http.MethodPost, st.srv[0].URL+"/earner/sign-in/"+strings.Repeat("A", 43), url.Values{})
	require.Equal(t, http.StatusGone, a.status)
	forged := browser(t)
	u, _ := url.Parse(st.srv[0].URL + "/earner")
	forged.Jar.SetCookies(u, []*http.Cookie{{Name: "badged_earner", Value: strings.Repeat("A", 43), Path: "/earner"}})
	a = do(t, forged, http.MethodGet, st.srv[0].URL+"/earner", nil)
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `name="email"`, "a forged cookie gets the sign-in form")

	// Counted: one sign-in, and the collection views.
	require.NoError(t, st.tally.Flush(context.Background()))
	var signins, views int64
	require.NoError(t, st.env.DB.Pool.QueryRow(context.Background(),
		"SELECT coalesce(sum(count) FILTER (WHERE kind = 'signin'), 0), coalesce(sum(count) FILTER (WHERE kind = 'collection_view'), 0) FROM earner_events_daily").Scan(&signins, &views))
	require.Equal(t, int64(1), signins)
	require.Equal(t, int64(2), views)

}

func TestEarner_CSRFPrivacyAndProfile(t *testing.T) {
	st := newStack(t, 5)
	id := st.env.IssueSigned(t, "Jane Doe", "jane@example.org")
	other := st.env.IssueSigned(t, "Someone Else", "else@example.org")
	c, csrf := st.signIn(t, "jane@example.org")
	base := st.srv[0].URL

	// Without the token, or with a wrong one: 403 and nothing written.
	for _, f := range []url.Values{{"show": {"1"}, "private": {"1"}}, {"csrf": {"x"}, "show": {"1"}}, {"csrf": {csrf + "x"}, "private": {"1"}}} {
		a := do(t, c, http.MethodPost, base+"/earner/badges/"+id.String(), f)
		require.Equal(t, http.StatusForbidden, a.status)
	}
	var n int
	require.NoError(t, st.env.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM earner_badge_prefs").Scan(&n))
	require.Zero(t, n)

	// Another earner's badge is not theirs to change.
	a := do(t, c, http.MethodPost, base+"/earner/badges/"+other.String(), url.Values{"csrf": {csrf}, "private": {"1"}})
	require.Equal(t, http.StatusNotFound, a.status)
	a = do(t, c, http.MethodPost, base+"/earner/badges/not-an-id", url.Values{"csrf": {csrf}, "private": {"1"}})
	require.Equal(t, http.StatusNotFound, a.status)

	// Private page: others see the neutral page; the credential JSON and status keep answering.
	a = do(t, c, http.MethodPost, base+"/earner/badges/"+id.String(), url.Values{"csrf": {csrf}, "private": {"1"}, "show": {"1"}})
	require.Equal(t, http.StatusSeeOther, a.status)
	page := do(t, browser(t), http.MethodGet, st.srv[1].URL+"/verify/"+id.String(), nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, "This badge is private")
	require.NotContains(t, page.body, "Jane Doe")
	req, _ := http.NewRequest(http.MethodGet, st.srv[1].URL+"/credentials/"+id.String(), nil)
	req.Header.Set("Accept", "application/ld+json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, http.StatusOK, do(t, browser(t), http.MethodGet, st.srv[1].URL+"/credentials/"+id.String()+"/status", nil).status)

	// Hostile handles: a clear answer, nothing written.
	for _, h := range []string{"ab", "-abc", "abc-", "ABC", "a b c", "ab\x00c", "<script>", "데이터", strings.Repeat("a", 10<<10), "a/../b"} {
		a := do(t, c, http.MethodPost, base+"/earner/profile", url.Values{"csrf": {csrf}, "handle": {h}, "public": {"1"}})
		require.True(t, a.status == http.StatusBadRequest || a.status == http.StatusRequestEntityTooLarge, "%.20q: %d", h, a.status)
	}
	a = do(t, c, http.MethodPost, base+"/earner/profile", url.Values{"csrf": {csrf}, "public": {"1"}})
	require.Equal(t, http.StatusBadRequest, a.status, "public needs a handle")
	require.NoError(t, st.env.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM earner_profiles").Scan(&n))
	require.Zero(t, n)

	// The profile is off by default, on when asked; it lists the shown badge, without a link to its private page.
	a = do(t, c, http.MethodPost, base+"/earner/profile", url.Values{"csrf": {csrf}, "handle": {"jane-doe"}})
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, http.StatusNotFound, do(t, browser(t), http.MethodGet, base+"/earners/jane-doe", nil).status)
	a = do(t, c, http.MethodPost, base+"/earner/profile", url.Values{"csrf": {csrf}, "handle": {"jane-doe"}, "public": {"1"}})
	require.Equal(t, http.StatusSeeOther, a.status)
	prof := do(t, browser(t), http.MethodGet, st.srv[1].URL+"/earners/jane-doe", nil)
	require.Equal(t, http.StatusOK, prof.status)
	require.Contains(t, prof.body, "Team lead")
	require.NotContains(t, prof.body, "/verify/"+id.String())
	require.NotContains(t, prof.body, "jane@example.org")

	// A taken handle: 409, the other earner's profile unchanged.
	c2, csrf2 := st.signIn(t, "else@example.org")
	a = do(t, c2, http.MethodPost, base+"/earner/profile", url.Values{"csrf": {csrf2}, "handle": {"jane-doe"}, "public": {"1"}})
	require.Equal(t, http.StatusConflict, a.status)

	// A wallet offer on demand: its landing page; pressing again reuses it.
	a = do(t, c, http.MethodPost, base+"/earner/badges/"+id.String()+"/wallet", url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	loc := a.header.Get("Location")
	require.Contains(t, loc, "/offers/")
	a = do(t, c, http.MethodPost, base+"/earner/badges/"+id.String()+"/wallet", url.Values{"csrf": {csrf}})
	require.Equal(t, loc, a.header.Get("Location"))
	page = do(t, browser(t), http.MethodGet, strings.Replace(loc, apitest.BaseURL, st.srv[1].URL, 1), nil)
	require.Equal(t, http.StatusOK, page.status)
	require.Contains(t, page.body, "openid-credential-offer://")
	require.Equal(t, http.StatusNotFound, do(t, c, http.MethodPost, base+"/earner/badges/"+other.String()+"/wallet", url.Values{"csrf": {csrf}}).status)

	// The zip holds the JSON credential.
	a = do(t, c, http.MethodGet, base+"/earner/export.zip", nil)
	require.Equal(t, http.StatusOK, a.status)
	zr, err := zip.NewReader(bytes.NewReader([]byte(a.body)), int64(len(a.body)))
	require.NoError(t, err)
	require.Len(t, zr.File, 1)
	require.Equal(t, id.String()+".json", zr.File[0].Name)
	a = do(t, c, http.MethodGet, base+"/earner/badges/"+id.String()+"/credential.json", nil)
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.header.Get("Content-Disposition"), "attachment")
	require.Equal(t, http.StatusNotFound, do(t, c, http.MethodGet, base+"/earner/badges/"+other.String()+"/credential.json", nil).status)

	// Sign out everywhere: the session ends on both processes.
	a = do(t, c, http.MethodPost, st.srv[1].URL+"/earner/sign-out-everywhere", url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusSeeOther, a.status)
	home := do(t, c, http.MethodGet, st.srv[0].URL+"/earner", nil)
	require.Contains(t, home.body, `name="email"`)
}

func TestEarner_LimitsSameAnswer(t *testing.T) {
	st := newStack(t, 2)
	st.env.IssueSigned(t, "Jane Doe", "jane@example.org")
	var bodies []string
	for i := range 5 {
		a := do(t, browser(t), http.MethodPost, st.srv[i%2].URL+"/earner/sign-in", url.Values{"email": {"jane@example.org"}})
		require.Equal(t, http.StatusOK, a.status)
		bodies = append(bodies, a.body)
	}
	for _, b := range bodies[1:] {
		require.Equal(t, bodies[0], b, "the same answer beyond the limit")
	}
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "two mails", func() bool { return len(st.tokens(t, "jane@example.org")) == 2 })
	require.Len(t, st.tokens(t, "jane@example.org"), 2)
}

// The display filter over all seven states, issued through v2 and v3: which section each lands in.
func TestEarner_DisplayFilter(t *testing.T) {
	st := newStack(t, 5)
	seed := st.env.IssueSigned(t, "Jane Doe", "jane@example.org")
	ctx := context.Background()
	type want struct{ active, inactive bool }
	wants := map[string][2]want{ // [v2, v3]
		"PROCESSING": {{}, {}},
		"ISSUED":     {{active: true}, {active: true}},
		"RECEIVED":   {{active: true}, {active: true}},
		"FAILED":     {{}, {}},
		"REISSUED":   {{active: true}, {}},
		"REVOKED":    {{inactive: true}, {inactive: true}},
		"EXPIRED":    {{inactive: true}, {inactive: true}},
	}
	ids := map[uuid.UUID][2]any{}
	n := 0
	for state, w := range wants {
		for vi, v := range []int{2, 3} {
			n++
			id := uuid.New()
			_, err := st.env.DB.Pool.Exec(ctx, `INSERT INTO assertions SELECT (jsonb_populate_record(a, jsonb_build_object(
				'id', $2::uuid, 'state', $3::text, 'api_version', $4::int, 'seq', a.seq + $5::int,
				'serial_number', a.serial_number || '-' || $5::text, 'certificate_token', gen_random_uuid()))).*
				FROM assertions a WHERE a.id = $1`, seed, id, state, v, n)
			require.NoError(t, err)
			ids[id] = [2]any{state, w[vi]}
		}
	}
	// A test-mode credential is never shown.
	testID := uuid.New()
	_, err := st.env.DB.Pool.Exec(ctx, `INSERT INTO assertions SELECT (jsonb_populate_record(a, jsonb_build_object(
		'id', $2::uuid, 'mode', 'test', 'seq', a.seq + 1000, 'serial_number', a.serial_number || '-t'))).*
		FROM assertions a WHERE a.id = $1`, seed, testID)
	require.NoError(t, err)

	c, _ := st.signIn(t, "jane@example.org")
	home := do(t, c, http.MethodGet, st.srv[0].URL+"/earner", nil).body
	activePart, inactivePart, _ := strings.Cut(home, `id="inactive"`)
	for id, sw := range ids {
		w := sw[1].(want)
		mark := `id="b-` + id.String() + `"`
		require.Equal(t, w.active, strings.Contains(activePart, mark), "%s v? active", sw[0])
		require.Equal(t, w.inactive, strings.Contains(inactivePart, mark), "%s inactive", sw[0])
	}
	require.NotContains(t, home, testID.String())
	require.Contains(t, home, "Revoked and expired")
}
