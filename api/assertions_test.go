package api_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/apikey"
)

// listFixture holds seven live assertions of the org, issued at three clock times and moved to several states by
// SQL (as the workflow would), plus a test-mode assertion of the org and one of the other org, which no list shows.
//
//	iss1 v3 2025-01-05 {badge}/{program}:  alice (RECEIVED, expired 2025-02-01 → EXPIRED), bob (RECEIVED), carol (FAILED)
//	iss2 v3 2025-01-15 {badge2}/{program3}: dave (ISSUED), erin (REVOKED, same email as alice)
//	iss3 v2 2025-02-01 {badge}/{program}:  frank, grace (PROCESSING)
type listFixture struct {
	*issFixture
	ids       map[string]string    // recipient name → assertion id
	createdAt map[string]time.Time // recipient name → created_at
	iss       map[string]string    // iss1..iss3, test → issuance id
}

var (
	t1 = time.Date(2025, 1, 5, 0, 0, 0, 0, time.UTC)
	t2 = time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)
	t3 = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
)

func newListFixture(tb testing.TB) *listFixture {
	tb.Helper()
	f := &listFixture{issFixture: newIssFixture(tb), ids: map[string]string{}, createdAt: map[string]time.Time{}, iss: map[string]string{}}
	f.vars["{program3}"] = f.mustProgram(tb, "manager", "Third program", f.vars["{image}"])
	f.vars["{badge3}"] = f.mustBadge(tb, "manager", "Third badge", f.vars["{image}"], f.vars["{program3}"])
	issue := func(name string, at time.Time, v, badge, key, body string) {
		f.clock.Set(at)
		f.iss[name] = jstr(tb, f.mustIssue(tb, v, badge, key, name, body), "id")
		f.vars["{"+name+"}"] = f.iss[name]
	}
	issue("iss1", t1, "v3", "{badge}", "manager", issuanceBody("{program}", rcpt("alice", "Alice@Example.com"),
		`{"name":"bob","phoneNumber":"010-1111-2222","receiveType":"KAKAOTALK"}`,
		`{"name":"carol","email":"carol@example.com","sourcedId":"S-3","receiveType":"EMAIL"}`))
	issue("iss2", t2, "v3", "{badge3}", "manager", issuanceBody("{program3}", rcpt("dave", "dave@example.com"), rcpt("erin", "alice@example.com")))
	issue("iss3", t3, "v2", "{badge}", "manager", issuanceBody("{program}", rcpt("frank", "frank@example.com"), rcpt("grace", "grace@example.com")))
	testKey := mustModeKey(tb, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
	issue("test", t3, "v3", "{badge}", testKey, issuanceBody("{program}", rcpt("tess", "alice@example.com")))
	issue("other", t3, "v3", "{otherBadge}", "otherManager", issuanceBody("{otherProgram}", rcpt("olga", "alice@example.com")))
	f.clock.Set(issNow)

	ctx := context.Background()
	rows, err := f.d.Pool.Query(ctx, "SELECT recipient_name, id::text, created_at FROM assertions")
	require.NoError(tb, err)
	for rows.Next() {
		var name, id string
		var at time.Time
		require.NoError(tb, rows.Scan(&name, &id, &at))
		f.ids[name], f.createdAt[name] = id, at
	}
	require.NoError(tb, rows.Err())
	require.Len(tb, f.ids, 9)
	for _, u := range []struct {
		name, sql string
	}{
		{"alice", "state = 'RECEIVED', expired_at = '2025-02-01T00:00:00Z'"},
		{"bob", "state = 'RECEIVED', expired_at = '2030-01-01T00:00:00Z'"},
		{"carol", "state = 'FAILED', error_code = 'BOUNCED_EMAIL'"},
		{"dave", "state = 'ISSUED'"},
		{"erin", "state = 'REVOKED'"},
		{"tess", "state = 'RECEIVED'"},
		{"olga", "state = 'RECEIVED'"},
	} {
		_, err := f.d.Pool.Exec(ctx, "UPDATE assertions SET "+u.sql+" WHERE id = $1", f.ids[u.name])
		require.NoError(tb, err)
	}
	return f
}

// list asks GET /assertions with query and returns the recipient names in answer order and the pagination.
func (f *listFixture) list(tb testing.TB, v, key, query string) ([]string, map[string]any) {
	tb.Helper()
	data := f.mustOK(tb, http.MethodGet, "/public/"+v+"/assertions?"+f.expand(query), f.keys[key], "")
	items, ok := data["items"].([]any)
	require.True(tb, ok, "%v", data)
	names := []string{}
	for _, it := range items {
		names = append(names, jstr(tb, it, "recipient.name"))
	}
	p, ok := data["pagination"].(map[string]any)
	require.True(tb, ok)
	return names, p
}

// ordered sorts names as the default order does: createdAt descending, then id descending.
func (f *listFixture) ordered(names ...string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, func(a, b string) int {
		if c := f.createdAt[b].Compare(f.createdAt[a]); c != 0 {
			return c
		}
		return strings.Compare(f.ids[b], f.ids[a])
	})
	return out
}

func TestAssertions_ListFilters(t *testing.T) {
	f := newListFixture(t)
	all := f.ordered("alice", "bob", "carol", "dave", "erin", "frank", "grace")
	// Case names say which totalElement path a filter takes: the trigger-kept counters (badge, program and a
	// stored-only state) or an exact count.
	cases := []struct {
		name, version, query string
		want                 []string
	}{
		{"no filter", "", "", all},
		{"badgeId (counters)", "", "badgeId={badge}", f.ordered("alice", "bob", "carol", "frank", "grace")},
		{"badgeId of another badge (counters)", "", "badgeId={badge3}", f.ordered("dave", "erin")},
		{"badgeId of another org", "", "badgeId={otherBadge}", nil},
		{"programId (counters)", "", "programId={program3}", f.ordered("dave", "erin")},
		{"badgeId and programId (counters)", "", "badgeId={badge}&programId={program}", f.ordered("alice", "bob", "carol", "frank", "grace")},
		{"badgeId and programId that do not meet", "", "badgeId={badge}&programId={program3}", nil},
		{"issuanceId (exact)", "", "issuanceId={iss1}", f.ordered("alice", "bob", "carol")},
		{"issuanceId of test mode", "", "issuanceId={test}", nil},
		{"issuanceId of another org", "", "issuanceId={other}", nil},
		{"stateCode PROCESSING (counters)", "", "stateCode=PROCESSING", f.ordered("frank", "grace")},
		{"stateCode FAILED (counters)", "", "stateCode=FAILED", []string{"carol"}},
		{"stateCode REVOKED with badgeId (counters)", "", "stateCode=REVOKED&badgeId={badge3}", []string{"erin"}},
		{"stateCode REISSUED (counters)", "", "stateCode=REISSUED", nil},
		{"stateCode ISSUED (exact)", "", "stateCode=ISSUED", []string{"dave"}},
		{"stateCode RECEIVED leaves out the expired one", "", "stateCode=RECEIVED", []string{"bob"}},
		{"stateCode EXPIRED finds the expired RECEIVED one", "", "stateCode=EXPIRED", []string{"alice"}},
		{"stateCode EXPIRED with badgeId", "", "stateCode=EXPIRED&badgeId={badge}", []string{"alice"}},
		{"email trimmed and lower-cased", "", "email=" + url.QueryEscape("  ALICE@example.COM "), f.ordered("alice", "erin")},
		{"email with badgeId", "", "email=alice@example.com&badgeId={badge3}", []string{"erin"}},
		{"email unknown", "", "email=nobody@example.com", nil},
		{"phoneNumber national form", "", "phoneNumber=010-1111-2222", []string{"bob"}},
		{"phoneNumber international form", "", "phoneNumber=" + url.QueryEscape("+82 10 1111 2222"), []string{"bob"}},
		{"phoneNumber E.164", "", "phoneNumber=" + url.QueryEscape("+821011112222"), []string{"bob"}},
		{"sourcedId", "v3", "sourcedId=S-3", []string{"carol"}},
		{"sourcedId is not a v2 filter", "v2", "sourcedId=S-3", all},
		{"email and sourcedId in v2: sourcedId ignored", "v2", "email=carol@example.com&sourcedId=S-999", []string{"carol"}},
		{"startAt and endAt in v3", "v3", "startAt=2025-01-10T00:00:00Z&endAt=2025-01-20T00:00:00Z", f.ordered("dave", "erin")},
		{"startAt and endAt with offsets", "v3", "startAt=" + url.QueryEscape("2025-01-15T09:00:00+09:00") + "&endAt=" + url.QueryEscape("2025-02-01T09:00:00+09:00"),
			f.ordered("dave", "erin", "frank", "grace")},
		{"startAt and endAt in v2 local time", "v2", "startAt=2025-01-15T09:00:00&endAt=2025-01-15T09:00:00", f.ordered("dave", "erin")},
		{"startAt only", "v3", "startAt=2025-01-15T00:00:01Z", f.ordered("frank", "grace")},
		{"endAt only", "v3", "endAt=2025-01-14T23:59:59Z", f.ordered("alice", "bob", "carol")},
		{"startAt equal to endAt", "v3", "startAt=2025-01-05T00:00:00Z&endAt=2025-01-05T00:00:00Z", f.ordered("alice", "bob", "carol")},
		{"range and state", "v3", "startAt=2025-01-01T00:00:00Z&endAt=2025-01-31T00:00:00Z&stateCode=FAILED", []string{"carol"}},
	}
	for _, c := range cases {
		for _, v := range testVersions {
			if c.version != "" && c.version != v {
				continue
			}
			t.Run(c.name+"/"+v, func(t *testing.T) {
				want := c.want
				if want == nil {
					want = []string{}
				}
				names, p := f.list(t, v, "viewer", c.query)
				require.Equal(t, want, names)
				require.Equal(t, float64(len(want)), p["totalElement"], "totalElement")
			})
		}
	}
	t.Run("other organization sees only its own", func(t *testing.T) {
		for _, v := range testVersions {
			names, _ := f.list(t, v, "otherManager", "")
			require.Equal(t, []string{"olga"}, names)
			names, _ = f.list(t, v, "otherManager", "email=alice@example.com")
			require.Equal(t, []string{"olga"}, names)
		}
	})
	t.Run("test-mode assertions are never listed, and a test key lists no live ones", func(t *testing.T) {
		testKey := mustModeKey(t, f.d, f.org, apikey.RoleViewer, apikey.ModeTest)
		for _, v := range testVersions {
			data := f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions?size=100", testKey, "")
			require.Empty(t, data["items"])
			require.Equal(t, float64(0), jget(t, data, "pagination.totalElement"))
			data = f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions?size=100", f.keys["viewer"], "")
			for _, it := range data["items"].([]any) {
				require.NotEqual(t, "tess", jstr(t, it, "recipient.name"))
			}
			require.Equal(t, float64(7), jget(t, data, "pagination.totalElement"))
		}
	})
	t.Run("counters follow state changes", func(t *testing.T) {
		_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET state = 'FAILED' WHERE id = $1", f.ids["frank"])
		require.NoError(t, err)
		for _, q := range []struct {
			query string
			want  []string
		}{
			{"stateCode=PROCESSING", []string{"grace"}},
			{"stateCode=FAILED", f.ordered("carol", "frank")},
			{"stateCode=FAILED&badgeId={badge}&programId={program}", f.ordered("carol", "frank")},
			{"", all},
		} {
			names, p := f.list(t, "v3", "viewer", q.query)
			require.Equal(t, q.want, names, q.query)
			require.Equal(t, float64(len(q.want)), p["totalElement"], q.query)
		}
	})
}

func TestAssertions_ListErrors(t *testing.T) {
	f := newListFixture(t)
	get := func(name, version, query, code string, fields ...string) apiCase {
		return apiCase{name: name, version: version, method: http.MethodGet, path: "/assertions?" + query, key: "viewer",
			wantStatus: 400, wantCode: code, wantFields: fields}
	}
	f.run(t, []apiCase{
		get("email and phoneNumber v2", "v2", "email=a@example.com&phoneNumber=01011112222", "AST023"),
		get("email and phoneNumber v3", "v3", "email=a@example.com&phoneNumber=01011112222", "AST024"),
		get("email and sourcedId v3", "v3", "email=a@example.com&sourcedId=S-3", "AST024"),
		get("phoneNumber and sourcedId v3", "v3", "phoneNumber=01011112222&sourcedId=S-3", "AST024"),
		get("startAt after endAt v3", "v3", "startAt=2025-02-01T00:00:00Z&endAt=2025-01-01T00:00:00Z", "AST008"),
		get("startAt after endAt v2", "v2", "startAt=2025-02-01T00:00:00&endAt=2025-01-01T00:00:00", "AST008"),
		get("startAt after endAt by a second", "v3", "startAt=2025-01-01T00:00:01Z&endAt=2025-01-01T00:00:00Z", "AST008"),
		get("startAt without offset v3", "v3", "startAt=2025-01-01T00:00:00", "COM002", "startAt"),
		get("endAt without offset v3", "v3", "endAt=2025-01-01T00:00:00", "COM002", "endAt"),
		get("startAt garbage", "", "startAt=yesterday", "COM002", "startAt"),
		get("sort by issuedAt", "", "sort=issuedAt,desc", "COM020"),
		get("sort by name", "", "sort=recipient.name", "COM020"),
		get("sort direction unknown", "", "sort=createdAt,up", "COM002", "sort"),
		get("stateCode unknown", "", "stateCode=DONE", "COM006", "stateCode"),
		get("stateCode lower-case", "", "stateCode=received", "COM006", "stateCode"),
		get("badgeId not a UUID", "", "badgeId=12", "COM002", "badgeId"),
		get("programId not a UUID", "", "programId=x", "COM002", "programId"),
		get("issuanceId not a UUID", "", "issuanceId=", "COM002", "issuanceId"),
		get("page 0", "", "page=0", "COM006", "page"),
		get("page negative", "", "page=-1", "COM006", "page"),
		get("page not a number", "", "page=two", "COM002", "page"),
		get("size 0", "", "size=0", "COM006", "size"),
		get("size 101", "", "size=101", "COM006", "size"),
		get("size not a number", "", "size=1.5", "COM002", "size"),
		{name: "no key", method: http.MethodGet, path: "/assertions", wantStatus: 401, wantCode: "SEC065"},
	})
}

func TestAssertions_ListOrderAndPages(t *testing.T) {
	f := newListFixture(t)
	all := f.ordered("alice", "bob", "carol", "dave", "erin", "frank", "grace")
	asc := slices.Clone(all)
	slices.Reverse(asc)
	for _, v := range testVersions {
		t.Run("default order/"+v, func(t *testing.T) {
			names, _ := f.list(t, v, "viewer", "")
			require.Equal(t, all, names)
			names, _ = f.list(t, v, "viewer", "sort=createdAt,desc")
			require.Equal(t, all, names)
		})
		t.Run("createdAt ascending/"+v, func(t *testing.T) {
			names, _ := f.list(t, v, "viewer", "sort=createdAt,asc")
			require.Equal(t, asc, names)
			names, _ = f.list(t, v, "viewer", "sort=createdAt")
			require.Equal(t, asc, names, "the direction defaults to ascending")
			names, _ = f.list(t, v, "viewer", "sort=createdAt,asc&page=2&size=3")
			require.Equal(t, asc[3:6], names)
		})
		t.Run("pages/"+v, func(t *testing.T) {
			pages := []struct {
				query string
				want  []string
				pg    map[string]any
			}{
				{"", all, map[string]any{"page": 1.0, "size": 20.0, "totalElement": 7.0, "totalPages": 1.0, "first": true, "last": true, "empty": false}},
				{"size=3", all[:3], map[string]any{"page": 1.0, "size": 3.0, "totalElement": 7.0, "totalPages": 3.0, "first": true, "last": false, "empty": false}},
				{"page=2&size=3", all[3:6], map[string]any{"page": 2.0, "size": 3.0, "totalElement": 7.0, "totalPages": 3.0, "first": false, "last": false, "empty": false}},
				{"page=3&size=3", all[6:], map[string]any{"page": 3.0, "size": 3.0, "totalElement": 7.0, "totalPages": 3.0, "first": false, "last": true, "empty": false}},
				{"page=4&size=3", nil, map[string]any{"page": 4.0, "size": 3.0, "totalElement": 7.0, "totalPages": 3.0, "first": false, "last": true, "empty": true}},
				{"size=100", all, map[string]any{"page": 1.0, "size": 100.0, "totalElement": 7.0, "totalPages": 1.0, "first": true, "last": true, "empty": false}},
				{"size=7", all, map[string]any{"page": 1.0, "size": 7.0, "totalElement": 7.0, "totalPages": 1.0, "first": true, "last": true, "empty": false}},
				{"email=nobody@example.com", nil, map[string]any{"page": 1.0, "size": 20.0, "totalElement": 0.0, "totalPages": 0.0, "first": true, "last": true, "empty": true}},
				{"stateCode=REISSUED", nil, map[string]any{"page": 1.0, "size": 20.0, "totalElement": 0.0, "totalPages": 0.0, "first": true, "last": true, "empty": true}},
				{"page=2&size=2&issuanceId={iss1}", f.ordered("alice", "bob", "carol")[2:], map[string]any{"page": 2.0, "size": 2.0, "totalElement": 3.0, "totalPages": 2.0, "first": false, "last": true, "empty": false}},
			}
			for _, p := range pages {
				names, pg := f.list(t, v, "viewer", p.query)
				want := p.want
				if want == nil {
					want = []string{}
				}
				require.Equal(t, want, names, p.query)
				require.Equal(t, p.pg, pg, p.query)
			}
		})
	}
	t.Run("a page past a million rows is refused", func(t *testing.T) {
		r := f.do(t, http.MethodGet, "/public/v3/assertions?page=10002&size=100", f.keys["viewer"], "")
		requireError(t, r, "/public/v3/assertions", 400, "COM006", "page")
	})
}

// assertionItemKeys are the keys of a v3 list item; v2 has neither issuedAt, evidence nor recipient.sourcedId.
var assertionItemKeys = []string{"id", "serialNumber", "badge", "program", "issuanceId", "recipient", "stateCode",
	"errorCode", "expiredAt", "issuedAt", "createdAt", "evidence"}

func TestAssertions_Get(t *testing.T) {
	f := newListFixture(t)
	ctx := context.Background()
	carol := f.ids["carol"]
	var serial string
	require.NoError(t, f.d.Pool.QueryRow(ctx, "SELECT serial_number FROM assertions WHERE id = $1", carol).Scan(&serial))

	t.Run("v3 before artifacts", func(t *testing.T) {
		data := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+carol, f.keys["viewer"], "")
		require.Equal(t, map[string]any{
			"id": carol, "serialNumber": serial,
			"badge":      map[string]any{"id": f.vars["{badge}"], "name": "Fixture badge", "image": imageObject(f.vars["{image}"])},
			"program":    map[string]any{"id": f.vars["{program}"], "name": "Fixture program", "image": imageObject(f.vars["{image}"])},
			"issuanceId": f.iss["iss1"],
			"recipient": map[string]any{"name": "carol", "email": "carol@example.com", "phoneNumber": nil, "sourcedId": "S-3",
				"receiveType": "EMAIL"},
			"stateCode": "FAILED", "errorCode": "BOUNCED_EMAIL", "expiredAt": nil,
			"issuedAt": "2025-01-05T00:00:00Z", "createdAt": "2025-01-05T00:00:00Z",
			"credentialUrl": nil, "openbadgeImageUrl": nil, "walletCopies": []any{}, "evidence": []any{},
		}, data)
		bob := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+f.ids["bob"], f.keys["viewer"], "")
		require.Contains(t, bob["recipient"], "sourcedId")
		require.Nil(t, jget(t, bob, "recipient.sourcedId"), "v3 carries sourcedId as null when absent")
		require.Equal(t, "+821011112222", jget(t, bob, "recipient.phoneNumber"))
		require.Nil(t, jget(t, bob, "recipient.email"))
		require.Equal(t, "2030-01-01T00:00:00Z", bob["expiredAt"])
	})
	t.Run("v2 links before artifacts", func(t *testing.T) {
		data := f.mustOK(t, http.MethodGet, "/public/v2/assertions/"+carol, f.keys["viewer"], "")
		require.Equal(t, baseURL+"/verify/"+carol, data["credentialUrl"])
		require.Equal(t, baseURL+"/media/"+f.vars["{image}"]+"/original", data["openbadgeImageUrl"], "falls back to the badge image")
		require.NotContains(t, data, "issuedAt")
		require.NotContains(t, data["recipient"], "sourcedId")
		require.Equal(t, "2025-01-05T09:00:00", data["createdAt"])
		bob := f.mustOK(t, http.MethodGet, "/public/v2/assertions/"+f.ids["bob"], f.keys["viewer"], "")
		require.Equal(t, "2030-01-01T09:00:00", bob["expiredAt"])
	})
	t.Run("list items have the detail's fields less the links", func(t *testing.T) {
		for _, v := range testVersions {
			data := f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions?issuanceId="+f.iss["iss1"], f.keys["viewer"], "")
			detail := f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions/"+carol, f.keys["viewer"], "")
			delete(detail, "credentialUrl")
			delete(detail, "openbadgeImageUrl")
			delete(detail, "walletCopies") // v3 detail only
			var item map[string]any
			for _, it := range data["items"].([]any) {
				if jstr(t, it, "id") == carol {
					item = it.(map[string]any)
				}
			}
			require.Equal(t, detail, item)
			wantKeys := assertionItemKeys
			if v == "v2" {
				wantKeys = slices.DeleteFunc(slices.Clone(wantKeys), func(k string) bool { return k == "issuedAt" || k == "evidence" })
			}
			require.ElementsMatch(t, wantKeys, keys(item))
		}
	})
	t.Run("links after artifacts", func(t *testing.T) {
		_, err := f.d.Pool.Exec(ctx, "UPDATE assertions SET credential_key = 'credentials/x.json', baked_key = 'baked/x.png', "+
			"baked_content_type = 'image/png' WHERE id = $1", f.ids["bob"])
		require.NoError(t, err)
		for _, v := range testVersions {
			data := f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions/"+f.ids["bob"], f.keys["viewer"], "")
			want := map[string]string{"v2": baseURL + "/verify/" + f.ids["bob"], "v3": baseURL + "/credentials/" + f.ids["bob"]}[v]
			require.Equal(t, want, data["credentialUrl"])
			require.Equal(t, baseURL+"/credentials/"+f.ids["bob"]+"/image", data["openbadgeImageUrl"])
		}
	})
	t.Run("expired shows EXPIRED", func(t *testing.T) {
		data := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+f.ids["alice"], f.keys["viewer"], "")
		require.Equal(t, "EXPIRED", data["stateCode"])
		require.Equal(t, "2025-02-01T00:00:00Z", data["expiredAt"])
	})
	f.vars["{carol}"] = carol
	f.vars["{tess}"] = f.ids["tess"]
	f.vars["{olga}"] = f.ids["olga"]
	f.run(t, []apiCase{
		{name: "other organization", method: http.MethodGet, path: "/assertions/{carol}", key: "otherManager", wantStatus: 404, wantCode: "AST001"},
		{name: "of another organization", method: http.MethodGet, path: "/assertions/{olga}", key: "viewer", wantStatus: 404, wantCode: "AST001"},
		{name: "test mode", method: http.MethodGet, path: "/assertions/{tess}", key: "viewer", wantStatus: 404, wantCode: "AST001"},
		{name: "missing", method: http.MethodGet, path: "/assertions/{missing}", key: "viewer", wantStatus: 404, wantCode: "AST001"},
		{name: "bad uuid", method: http.MethodGet, path: "/assertions/abc", key: "viewer", wantStatus: 400, wantCode: "COM002", wantFields: []string{"assertionId"}},
	})
}

func TestAssertions_Cancel(t *testing.T) {
	f := newListFixture(t)
	for name, id := range f.ids {
		f.vars["{"+name+"}"] = id
	}
	f.run(t, []apiCase{
		{name: "PROCESSING", method: http.MethodPost, path: "/assertions/{frank}/cancel", key: "manager", wantStatus: 409, wantCode: "AST022"},
		{name: "FAILED", method: http.MethodPost, path: "/assertions/{carol}/cancel", key: "manager", wantStatus: 409, wantCode: "AST022"},
		{name: "expired", method: http.MethodPost, path: "/assertions/{alice}/cancel", key: "manager", wantStatus: 409, wantCode: "AST022"},
		{name: "viewer", method: http.MethodPost, path: "/assertions/{bob}/cancel", key: "viewer", wantStatus: 403, wantCode: "ORG004"},
		{name: "other organization", method: http.MethodPost, path: "/assertions/{bob}/cancel", key: "otherManager", wantStatus: 404, wantCode: "AST001"},
		{name: "bad uuid", method: http.MethodPost, path: "/assertions/x/cancel", key: "manager", wantStatus: 400, wantCode: "COM002", wantFields: []string{"assertionId"}},
	})
	var state string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT state FROM assertions WHERE id = $1", f.ids["frank"]).Scan(&state))
	require.Equal(t, "PROCESSING", state)
	t.Run("RECEIVED is revoked, and again is a safe retry", func(t *testing.T) {
		for range 2 {
			data := f.mustOK(t, http.MethodPost, "/public/v3/assertions/"+f.ids["bob"]+"/cancel", f.keys["manager"], "")
			require.Equal(t, "REVOKED", data["stateCode"])
		}
		names, p := f.list(t, "v3", "viewer", "stateCode=REVOKED")
		require.Equal(t, f.ordered("bob", "erin"), names)
		require.Equal(t, 2.0, p["totalElement"])
	})
}
