package catalog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/issuer"
)

const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// get fetches path of the env's server with Accept (and Accept-Language when lang is set).
func get(t *testing.T, e *apitest.Env, path, accept, lang string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.Srv.URL+path, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(body)
}

// TestOrgPage_Negotiates: the issuer id answers machines the controller document, byte for byte as
// issuer.ControllerDocument encodes it whatever JSON type they ask for, and browsers the organization's page with
// its visible program, its badge (linking to the badge's page) and how many hold it; Vary names Accept.
func TestOrgPage_Negotiates(t *testing.T) {
	e := apitest.New(t)
	e.IssueSigned(t, "Kim Minji", "minji@example.com")
	e.MustOK(t, http.MethodPatch, "/public/v3/programs/"+e.Program(), e.Keys["manager"], `{"isVisibleAtOrganizationPage":true}`)
	doc, found, err := e.Issuer.ControllerDocument(context.Background(), e.Org.ID, apikey.ModeLive)
	require.NoError(t, err)
	require.True(t, found)
	var want bytes.Buffer
	require.NoError(t, json.NewEncoder(&want).Encode(doc))
	path := "/issuers/" + e.Org.ID.String()
	for _, accept := range []string{"", "application/json", "application/ld+json", "application/did+ld+json", "*/*"} {
		status, h, body := get(t, e, path, accept, "")
		require.Equal(t, http.StatusOK, status, accept)
		require.Equal(t, want.String(), body, "Accept %q: the document's bytes", accept)
		require.Equal(t, "application/did+ld+json", h.Get("Content-Type"))
		require.Contains(t, h.Get("Vary"), "Accept")
	}
	status, h, page := get(t, e, path, browser, "en")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, h.Get("Content-Type"), "text/html")
	require.Contains(t, h.Get("Vary"), "Accept")
	require.Contains(t, page, "<h1 id=\"org-name\">Acme Academy</h1>")
	require.Contains(t, page, "Fixture program")
	require.Contains(t, page, `href="`+apitest.BaseURL+`/achievements/`+e.Badge()+`"`)
	require.Contains(t, page, "Holders now: 1")
	require.Contains(t, page, `<meta property="og:title" content="Acme Academy">`)
	require.NotContains(t, page, "Kim Minji", "recipients never appear")
	require.NotContains(t, page, "minji@")

	_, _, ko := get(t, e, path, browser, "ko-KR,ko;q=0.9")
	require.Contains(t, ko, `<html lang="ko">`)
	require.Contains(t, ko, "현재 보유자: 1명")
	_, _, en := get(t, e, path+"?lang=en", browser, "ko")
	require.Contains(t, en, `<html lang="en">`)

	status, _, _ = get(t, e, "/issuers/"+uuid.NewString(), browser, "")
	require.Equal(t, http.StatusNotFound, status)
}

// TestOrgPage_OnlyWhatIsShown: an invisible program never shows, nor test-mode holders; a program switched to
// invisible is gone from the very next request, on every API process (no cache to wait for).
func TestOrgPage_OnlyWhatIsShown(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	live := e.IssueSigned(t, "A", "a@example.com")
	test := e.IssueSigned(t, "B", "b@example.com")
	_ = live
	_, err := e.DB.Pool.Exec(ctx, "UPDATE assertions SET mode = 'test' WHERE id = $1", test)
	require.NoError(t, err)
	e.MustOK(t, http.MethodPatch, "/public/v3/programs/"+e.Program(), e.Keys["manager"], `{"isVisibleAtOrganizationPage":true}`)
	var img uuid.UUID
	require.NoError(t, e.DB.Pool.QueryRow(ctx, "SELECT image_id FROM programs WHERE id = $1", uuid.MustParse(e.Program())).Scan(&img))
	e.MustOK(t, http.MethodPost, "/public/v3/programs", e.Keys["manager"],
		`{"name":"Hidden program","categoryCode":"EDUCATION","imageId":"`+img.String()+`"}`)

	path := "/issuers/" + e.Org.ID.String()
	_, _, page := get(t, e, path, browser, "en")
	require.Contains(t, page, "Fixture program")
	require.NotContains(t, page, "Hidden program")
	require.Contains(t, page, "Holders now: 1", "the test-mode credential is not counted")

	second := e.Server(t) // another API process of the deployment, which had shown the page too
	res, err := http.Get(second.URL + path + "?lang=en")
	require.NoError(t, err)
	res.Body.Close()
	e.MustOK(t, http.MethodPatch, "/public/v3/programs/"+e.Program(), e.Keys["manager"], `{"isVisibleAtOrganizationPage":false}`)
	_, _, page = get(t, e, path, browser, "en")
	require.NotContains(t, page, "Fixture program")
	require.Contains(t, page, "This organization shows no programs yet.")
	req, err := http.NewRequest(http.MethodGet, second.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", browser)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	res.Body.Close()
	require.NotContains(t, string(body), "Fixture program", "gone on every process at once")
	require.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
}

// TestOrgPage_Pages: more than 50 visible programs are listed 50 a page, with a pager; past the last page is 404.
func TestOrgPage_Pages(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	_, err := e.DB.Pool.Exec(ctx, `INSERT INTO programs (id, org_id, name, category_code, visible_on_org_page, image_id, created_at)
		SELECT gen_random_uuid(), p.org_id, 'Seeded ' || g, 'EDUCATION', true, p.image_id, now() - g * interval '1 minute'
		FROM programs p, generate_series(1, 51) g WHERE p.id = $1`, uuid.MustParse(e.Program()))
	require.NoError(t, err)
	path := "/issuers/" + e.Org.ID.String()
	_, _, first := get(t, e, path, browser, "en")
	require.Equal(t, 50, strings.Count(first, `class="card program"`))
	require.Contains(t, first, "Page 1 of 2")
	require.Contains(t, first, `href="?lang=en&amp;page=2"`)
	status, _, second := get(t, e, path+"?page=2", browser, "en")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, 1, strings.Count(second, `class="card program"`))
	require.Contains(t, second, "Seeded 51")
	status, _, _ = get(t, e, path+"?page=3", browser, "en")
	require.Equal(t, http.StatusNotFound, status)
}

// TestAchievement_MachinesGetWhatWasSigned: the achievement id answers a machine the achievement its credential
// embeds, with the credential's @context; a browser gets the badge's page; an unknown, deleted or draft badge is
// 404 to both (the 404 page, the contract's body).
func TestAchievement_MachinesGetWhatWasSigned(t *testing.T) {
	e := apitest.New(t)
	id := e.IssueSigned(t, "Kim Minji", "minji@example.com")
	a, err := e.DB.GetBadgePage(context.Background(), id)
	require.NoError(t, err)
	rc, _, err := e.Store.Get(context.Background(), *a.Assertion.CredentialKey)
	require.NoError(t, err)
	raw, err := io.ReadAll(rc)
	require.NoError(t, err)
	rc.Close()
	var cred map[string]any
	require.NoError(t, json.Unmarshal(raw, &cred))
	want := cred["credentialSubject"].(map[string]any)["achievement"].(map[string]any)
	want["@context"] = cred["@context"]

	path := "/achievements/" + e.Badge()
	for _, accept := range []string{"", "application/json", "application/ld+json"} {
		status, h, body := get(t, e, path, accept, "")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "application/ld+json", h.Get("Content-Type"))
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Equal(t, want, got)
		require.Equal(t, apitest.BaseURL+path, got["id"])
	}

	status, _, page := get(t, e, path, browser, "en")
	require.Equal(t, http.StatusOK, status)
	for _, s := range []string{"<h1 id=\"badge-name\">Team lead</h1>", "Awarded on completion", "Finish all modules", "<li>Go</li>",
		"valid for one month", "Holders now: 1", `href="` + apitest.BaseURL + `/issuers/` + e.Org.ID.String() + `"`} {
		require.Contains(t, page, s)
	}
	require.NotContains(t, page, "Kim Minji")
	require.NotContains(t, page, "Fixture program", "an invisible program is not named")
	e.MustOK(t, http.MethodPatch, "/public/v3/programs/"+e.Program(), e.Keys["manager"], `{"isVisibleAtOrganizationPage":true}`)
	_, _, page = get(t, e, path, browser, "ko")
	require.Contains(t, page, "Fixture program")
	require.Contains(t, page, "1개월")

	for _, p := range []string{"/achievements/" + uuid.NewString(), "/achievements/nope"} {
		status, _, body := get(t, e, p, browser, "en")
		require.Equal(t, http.StatusNotFound, status)
		require.Contains(t, body, "We could not find this page")
		status, _, body = get(t, e, p, "application/json", "")
		require.Equal(t, http.StatusNotFound, status)
		require.Contains(t, body, `"NOT_FOUND"`)
	}
	_, err = e.DB.Pool.Exec(context.Background(), "UPDATE badges SET publish_status = 'DRAFTED' WHERE id = $1", uuid.MustParse(e.Badge()))
	require.NoError(t, err)
	status, _, _ = get(t, e, path, browser, "en")
	require.Equal(t, http.StatusNotFound, status)
}

// TestRoot_Answers: the service root (a test issuer's url) is a page, not a 404.
func TestRoot_Answers(t *testing.T) {
	e := apitest.New(t)
	for _, accept := range []string{browser, "application/json"} {
		status, _, body := get(t, e, "/", accept, "")
		require.Equal(t, http.StatusOK, status)
		require.Contains(t, body, "Open Badges 3.0")
	}
}

// TestProfile_URL: a credential's issuer url is the organization's website, else its page here; a test issuer's is
// the service root.
func TestProfile_URL(t *testing.T) {
	s := &issuer.Service{BaseURL: "https://b.example"}
	org := uuid.New()
	require.Equal(t, "https://b.example/issuers/"+org.String(), s.Profile(org, apikey.ModeLive, "Acme", "").URL)
	require.Equal(t, "https://acme.example", s.Profile(org, apikey.ModeLive, "Acme", "https://acme.example").URL)
	require.Equal(t, "https://b.example/", s.Profile(org, apikey.ModeTest, "Acme", "https://acme.example").URL)
	require.Equal(t, fmt.Sprint("https://b.example/issuers/", org), s.OrgPageURL(org))
}
