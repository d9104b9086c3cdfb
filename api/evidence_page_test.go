package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestEvidence_PageAndCertificate: the badge page and the PDF certificate show the evidence the verified credential
// signs, and say it is signed (as the details list does); links are https only. A credential whose signature does
// not verify shows the issuer's records, marked so.
func TestEvidence_PageAndCertificate(t *testing.T) {
	f := newPageFixture(t)
	now := time.Now().UTC().Truncate(time.Second)
	f.clock.Set(now)
	ev := `[{"url":"https://portfolio.example/kim?a=1&b=2","name":"Capstone project","narrative":"Built a compiler.\nIn Go.","genre":"Project"},
		{"narrative":"Presented to the faculty."}]`
	body := strings.TrimSuffix(issuanceBody(f.vars["{program}"], rcptWithEvidence("kim@example.com", ev)), "}") +
		`,"issuedAt":"` + now.Add(-time.Hour).Format(time.RFC3339) + `"}`
	iss := jstr(t, f.mustIssue(t, "v3", "{badge1m}", "manager", uuid.NewString(), body), "id")
	var id uuid.UUID
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1", uuid.MustParse(iss)).Scan(&id))
	signed := f.mustSignAssertion(t, id, true)
	require.Contains(t, string(signed), `"evidence":[`)

	p := f.page(t, "/verify/"+id.String())
	require.Contains(t, p, "This badge is valid</h1>")
	i := strings.Index(p, `<h2 id="evidence">Evidence</h2>`)
	require.GreaterOrEqual(t, i, 0, "an evidence section")
	sec := p[i : i+strings.Index(p[i:], "</section>")]
	require.Contains(t, sec, `<h3 class="src signed">Signed in the credential</h3>`)
	require.Contains(t, sec, `<a href="https://portfolio.example/kim?a=1&amp;b=2" rel="noopener noreferrer nofollow">Capstone project</a>`)
	require.Contains(t, sec, `<span class="genre">Project</span>`)
	require.Contains(t, sec, "Built a compiler.\nIn Go.")
	require.Contains(t, sec, `<li><span class="narrative">Presented to the faculty.</span></li>`, "an item of narrative only")
	ko := f.page(t, "/verify/"+id.String()+"?lang=ko")
	require.Contains(t, ko, `<h2 id="evidence">증빙 자료</h2>`)

	var token string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT certificate_token::text FROM assertions WHERE id = $1", id).Scan(&token))
	text := f.certificateText(t, "/credentials/"+id.String()+"/certificate.pdf?token="+token+"&lang=en", "")
	require.Contains(t, text, "Evidence (signed in the credential): Capstone project (https://portfolio.example/kim?a=1&b=2)")
	require.Contains(t, f.certificateText(t, "/credentials/"+id.String()+"/certificate.pdf?token="+token+"&lang=ko", ""), "증빙 자료(자격 증명에 서명됨)")

	// A credential whose proof fails: the evidence shown is the issuer's records, and says so.
	tampered := strings.Replace(string(signed), "Capstone project", "Someone else", 1)
	key := "credentials/tampered-" + id.String() + ".json"
	_, err := f.store.PutIfAbsent(context.Background(), key, []byte(tampered), "application/json")
	require.NoError(t, err)
	_, err = f.d.Pool.Exec(context.Background(), "UPDATE assertions SET credential_key = $2 WHERE id = $1", id, key)
	require.NoError(t, err)
	p = f.page(t, "/verify/"+id.String())
	require.NotContains(t, p, "This badge is valid</h1>")
	i = strings.Index(p, `<h2 id="evidence">Evidence</h2>`)
	require.GreaterOrEqual(t, i, 0)
	sec = p[i : i+strings.Index(p[i:], "</section>")]
	require.Contains(t, sec, `<h3 class="src">From the issuer&#39;s records (not signed)</h3>`)
	require.Contains(t, sec, "Capstone project")
	require.NotContains(t, sec, "Someone else")
}
