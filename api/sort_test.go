package api_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sortedRow is an (id, createdAt) pair as the database holds it.
type sortedRow struct {
	id        string
	createdAt time.Time
}

// rowsOf runs query, which selects (id::text, created_at).
func (f *issFixture) rowsOf(tb testing.TB, query string, args ...any) []sortedRow {
	tb.Helper()
	rows, err := f.d.Pool.Query(context.Background(), query, args...)
	require.NoError(tb, err)
	defer rows.Close()
	var out []sortedRow
	for rows.Next() {
		var r sortedRow
		require.NoError(tb, rows.Scan(&r.id, &r.createdAt))
		out = append(out, r)
	}
	require.NoError(tb, rows.Err())
	return out
}

// orderBy sorts rows by createdAt then id in the given directions (idFirst: by id alone).
func orderBy(rows []sortedRow, idFirst, createdDesc, idDesc bool) []string {
	s := slices.Clone(rows)
	slices.SortFunc(s, func(a, b sortedRow) int {
		if !idFirst {
			c := a.createdAt.Compare(b.createdAt)
			if createdDesc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		c := strings.Compare(a.id, b.id)
		if idDesc {
			c = -c
		}
		return c
	})
	out := make([]string, len(s))
	for i, r := range s {
		out[i] = r.id
	}
	return out
}

// listIDs pages through list (a path with query) size rows at a time and returns every id in order.
func (f *issFixture) listIDs(tb testing.TB, list string, size int) []string {
	tb.Helper()
	var ids []string
	for page := 1; ; page++ {
		data := f.mustOK(tb, http.MethodGet, list+"&size="+strconv.Itoa(size)+"&page="+strconv.Itoa(page), f.keys["viewer"], "")
		items := data["items"].([]any)
		for _, it := range items {
			ids = append(ids, jstr(tb, it, "id"))
		}
		if len(items) < size {
			return ids
		}
	}
}

// TestSort_AssertionsHonourEveryDirection: the assertions of one issuance share created_at, so the direction of id
// decides within each issuance.
func TestSort_AssertionsHonourEveryDirection(t *testing.T) {
	f := newIssFixture(t)
	f.mustIssue(t, "v3", "{badge}", "manager", "sort-1", manyRecipients(f.expand("{program}"), 4))
	f.clock.Set(issNow.Add(time.Minute))
	f.mustIssue(t, "v3", "{badge2}", "manager", "sort-2", manyRecipients(f.expand("{program}"), 4))
	rows := f.rowsOf(t, "SELECT id::text, created_at FROM assertions WHERE org_id = $1", f.org.ID)
	require.Len(t, rows, 8)
	cases := []struct {
		sort                        string
		idFirst, createdDesc, idDes bool
	}{
		{"", false, true, true},
		{"&sort=createdAt,desc&sort=id,desc", false, true, true},
		{"&sort=createdAt,desc&sort=id,asc", false, true, false},
		{"&sort=createdAt,asc&sort=id,desc", false, false, true},
		{"&sort=createdAt,asc&sort=id,asc", false, false, false},
		{"&sort=createdAt,asc", false, false, false},
		{"&sort=createdAt,desc&sort=id,asc&sort=createdAt,asc", false, true, false}, // a field again changes nothing
		{"&sort=id,asc", true, false, false},
		{"&sort=id,desc&sort=createdAt,asc", true, false, true},
	}
	for _, v := range testVersions {
		for _, c := range cases {
			t.Run(v+c.sort, func(t *testing.T) {
				want := orderBy(rows, c.idFirst, c.createdDesc, c.idDes)
				list := "/public/" + v + "/assertions?" + strings.TrimPrefix(c.sort, "&")
				require.Equal(t, want, f.listIDs(t, list, 20))
				require.Equal(t, want, f.listIDs(t, list, 3), "pages neither overlap nor skip")
			})
		}
	}
}

// TestSort_ProgramsAndBadgesHonourEveryField: the second sort field decides among equal first fields, in its own
// direction; rows sharing both fall to id in the first field's direction.
func TestSort_ProgramsAndBadgesHonourEveryField(t *testing.T) {
	f := newIssFixture(t)
	for _, res := range []string{"programs", "badges"} {
		made := map[string]string{}
		for _, name := range []string{"sort-x1", "sort-x2", "sort-x3", "sort-y"} {
			if res == "programs" {
				made[name] = f.mustProgram(t, "manager", name, f.vars["{image}"])
			} else {
				made[name] = f.mustBadge(t, "manager", name, f.vars["{image}"])
			}
		}
		// x1 is older than x2; x2 and x3 share created_at; all three share the name "sort-x".
		set := func(name, at string) {
			_, err := f.d.Pool.Exec(context.Background(), "UPDATE "+res+" SET name = $2, created_at = $3 WHERE id = $1",
				made[name], strings.TrimRight(name, "0123456789"), at)
			require.NoError(t, err)
		}
		set("sort-x1", "2025-01-01T00:00:00Z")
		set("sort-x2", "2025-01-02T00:00:00Z")
		set("sort-x3", "2025-01-02T00:00:00Z")
		x2, x3 := made["sort-x2"], made["sort-x3"]
		lo, hi := min(x2, x3), max(x2, x3)
		ours := func(ids []string) []string {
			return slices.DeleteFunc(ids, func(id string) bool {
				return !slices.ContainsFunc([]string{made["sort-x1"], x2, x3, made["sort-y"]}, func(m string) bool { return m == id })
			})
		}
		cases := []struct {
			sort string
			want []string
		}{
			{"sort=name,asc&sort=createdAt,desc", []string{lo, hi, made["sort-x1"], made["sort-y"]}},
			{"sort=name,asc&sort=createdAt,asc", []string{made["sort-x1"], lo, hi, made["sort-y"]}},
			{"sort=name,desc&sort=createdAt,asc", []string{made["sort-y"], made["sort-x1"], hi, lo}},
			{"sort=name,desc&sort=createdAt,desc", []string{made["sort-y"], hi, lo, made["sort-x1"]}},
		}
		for _, v := range testVersions {
			for _, c := range cases {
				t.Run(res+"/"+v+"/"+c.sort, func(t *testing.T) {
					got := ours(f.listIDs(t, "/public/"+v+"/"+res+"?"+c.sort, 100))
					require.Equal(t, c.want, got)
					require.Equal(t, c.want, ours(f.listIDs(t, "/public/"+v+"/"+res+"?"+c.sort, 2)), "pages neither overlap nor skip")
				})
			}
		}
	}
}
