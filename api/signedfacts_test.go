package api_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
)

// pageFixture is an issuance fixture whose handler has an issuer service and a store the test writes to, so its
// assertions get real signed credentials without the pipeline (no chain: the page shows them unanchored).
type pageFixture struct {
	*issFixture
	store blob.Store
	iss   *issuer.Service
}

func newPageFixture(tb testing.TB) *pageFixture {
	tb.Helper()
	f := &pageFixture{issFixture: &issFixture{fixture: newFixture(tb), starter: &fakeStarter{}, clock: &testClock{now: issNow}}}
	deps := issuanceDeps(tb, f.d, f.starter, f.clock.Now)
	f.store, f.iss = deps.Blob, deps.Issuer
	f.env = &env{d: f.d, srv: startServer(tb, api.NewHandler(deps))}
	f.vars["{badge1m}"] = f.mustBadgeWith(tb, "Team lead", `"expirationPolicy":{"relativeExpirationMonths":1}`, f.vars["{program}"])
	// The badge image, as an upload would have stored it: the certificate draws it.
	_, err := f.store.PutIfAbsent(context.Background(), issuer.MediaKey(f.vars["{image}"], "medium", "png"), mustPNG(tb, 64, 64, false), "image/png")
	require.NoError(tb, err)
	return f
}

// mustSignAssertion gives an assertion the credential the sign step would (withName false: as signed before names
// were) and marks it RECEIVED.
func (f *pageFixture) mustSignAssertion(tb testing.TB, id uuid.UUID, withName bool) []byte {
	tb.Helper()
	return f.signAssertion(tb, id, withName, false)
}

// signAssertion signs the assertion as the sign step does (apitest.SignCredential), with the recipient's name when
// withName and its status list entry when withStatus, then as edit changes it, stores the credential and marks the
// assertion RECEIVED.
func (f *pageFixture) signAssertion(tb testing.TB, id uuid.UUID, withName, withStatus bool, edit ...func(*credential.BuildInput)) []byte {
	tb.Helper()
	return apitest.SignCredential(tb, f.d, f.store, f.iss, id, withName, withStatus, edit...)
}

// issueSigned issues one recipient per name (v3, the one-month badge, issued at issuedAt) and signs each.
func (f *pageFixture) issueSigned(tb testing.TB, issuedAt string, withName bool, names ...string) map[string]db.Assertion {
	tb.Helper()
	var rs []string
	for _, n := range names {
		rs = append(rs, rcpt(n, strings.ReplaceAll(strings.ToLower(n), " ", ".")+"@example.com"))
	}
	body := strings.TrimSuffix(issuanceBody(f.vars["{program}"], rs...), "}") + `,"issuedAt":"` + issuedAt + `"}`
	iss := jstr(tb, f.mustIssue(tb, "v3", "{badge1m}", "manager", uuid.NewString(), body), "id")
	rows, err := f.d.Pool.Query(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1", uuid.MustParse(iss))
	require.NoError(tb, err)
	ids := []uuid.UUID{}
	for rows.Next() {
		var id uuid.UUID
		require.NoError(tb, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(tb, rows.Err())
	out := map[string]db.Assertion{}
	for _, id := range ids {
		f.mustSignAssertion(tb, id, withName)
		a, err := f.d.GetBadgePage(context.Background(), id)
		require.NoError(tb, err)
		out[a.Assertion.RecipientName] = a.Assertion
	}
	return out
}

// page is the HTML of a badge page.
func (f *pageFixture) page(tb testing.TB, path string) string {
	tb.Helper()
	r := f.doRaw(tb, http.MethodGet, path, "", "", nil)
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	return string(r.Raw)
}

// certificateText downloads a certificate and returns its text, joined into one line (pdftotext, poppler-utils).
func (f *pageFixture) certificateText(tb testing.TB, path, key string) string {
	tb.Helper()
	r := f.doRaw(tb, http.MethodGet, path, key, "", nil)
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(tb, "application/pdf", r.Header.Get("Content-Type"))
	require.Equal(tb, "no-cache", r.Header.Get("Cache-Control"), "a cache must not keep a state the badge may leave")
	cmd := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(r.Raw)
	out, err := cmd.Output()
	require.NoError(tb, err, "pdftotext (Debian package poppler-utils, `make os-deps`)")
	return strings.Join(strings.Fields(string(out)), " ")
}

// section is the text of the details list group that follows heading on a page.
func section(tb testing.TB, page, heading string) string {
	tb.Helper()
	i := strings.Index(page, heading+"</h3>")
	require.GreaterOrEqual(tb, i, 0, "no %q group on the page", heading)
	rest := page[i:]
	return rest[:strings.Index(rest, "</dl>")]
}

// TestBadgePage_SignedFacts: the page vouches only for what the credential signs. A credential that names its
// recipient shows the name as signed; one signed before names were (only the hashed e-mail) shows it as the
// issuer's record. Dates name their zone and "Issued on" is validFrom's date in it; the expiry is the signed
// validUntil whatever the row says.
func TestBadgePage_SignedFacts(t *testing.T) {
	f := newPageFixture(t)
	// 16:30 UTC on February 9 is 01:30 on February 10 in Seoul.
	named := f.issueSigned(t, "2025-02-09T16:30:00Z", true, "Alice Park")["Alice Park"]
	old := f.issueSigned(t, "2025-02-09T16:30:00Z", false, "Old Record")["Old Record"]

	p := f.page(t, "/verify/"+named.ID.String())
	require.Contains(t, p, "This badge is valid</h1>")
	require.Contains(t, p, "Issued to Alice Park by Acme Academy on February 10, 2025 (KST). The signed credential names the recipient")
	require.Contains(t, p, `<p class="awarded">Awarded to Alice Park</p>`)
	signed := section(t, p, "Signed in the credential")
	for _, want := range []string{"<dd>Alice Park</dd>", "<dd>Team lead</dd>", "<dd>Acme Academy</dd>",
		"<dt>Issued on</dt><dd>February 10, 2025 (KST)</dd>", "<dt>Expires on</dt><dd>March 10, 2025 at 00:00 (KST)</dd>"} {
		require.Contains(t, signed, want)
	}
	records := section(t, p, "From the issuer&#39;s records (not signed)")
	require.NotContains(t, records, "Alice Park")
	require.Contains(t, records, "<dt>Serial number</dt>")

	p = f.page(t, "/verify/"+old.ID.String())
	require.Contains(t, p, "This badge is valid</h1>")
	require.Contains(t, p, "Issued by Acme Academy on February 10, 2025 (KST). The credential identifies the recipient only by a hashed identifier: the name Old Record is from the issuer&#39;s records, not signed.")
	require.Contains(t, p, "Awarded to Old Record (name from the issuer&#39;s records)")
	require.NotContains(t, section(t, p, "Signed in the credential"), "Old Record")
	require.Contains(t, section(t, p, "From the issuer&#39;s records (not signed)"), "<dt>Recipient</dt><dd>Old Record</dd>")

	p = f.page(t, "/verify/"+named.ID.String()+"?lang=ko")
	require.Contains(t, p, "<dt>발급일</dt><dd>2025년 2월 10일 (KST)</dd>")
	require.Contains(t, p, "<dt>만료일</dt><dd>2025년 3월 10일 00:00 (KST)</dd>")
	require.Contains(t, p, "자격 증명에 서명된 정보")

	// The row's expiry is not what the page shows: the signed validUntil is.
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET expired_at = '2025-02-11T00:00:00Z' WHERE id = $1", named.ID)
	require.NoError(t, err)
	f.clock.Set(time.Date(2025, 2, 20, 0, 0, 0, 0, time.UTC))
	p = f.page(t, "/verify/"+named.ID.String())
	require.Contains(t, p, "This badge is valid</h1>", "the signed credential is valid until March 10")
	require.Contains(t, p, "<dt>Expires on</dt><dd>March 10, 2025 at 00:00 (KST)</dd>")
	f.clock.Set(time.Date(2025, 3, 9, 15, 0, 0, 0, time.UTC)) // 00:00 on March 10 in Seoul
	p = f.page(t, "/verify/"+named.ID.String())
	require.Contains(t, p, "This badge expired on March 10, 2025 (KST)</h1>")
	require.Contains(t, p, "It was valid from February 10, 2025 (KST) until March 10, 2025 at 00:00 (KST).")
}

// TestBadgePage_NoCertificateToken: the public page never carries the recipient's certificate link (its token
// would go to anyone the page is shared with); the 404 page claims no check.
func TestBadgePage_NoCertificateToken(t *testing.T) {
	f := newPageFixture(t)
	a := f.issueSigned(t, "2025-02-09T16:30:00Z", true, "Alice Park")["Alice Park"]
	for _, lang := range []string{"en", "ko"} {
		p := f.page(t, "/verify/"+a.ID.String()+"?lang="+lang)
		require.NotContains(t, p, a.CertificateToken.String())
		require.NotContains(t, p, "certificate.pdf")
	}
	for lang, claim := range map[string]string{"en": "checked the badge", "ko": "검증했습니다"} {
		r := f.doRaw(t, http.MethodGet, "/verify/"+uuid.NewString()+"?lang="+lang, "", "", nil)
		require.Equal(t, http.StatusNotFound, r.Status)
		require.NotContains(t, string(r.Raw), claim, "the 404 page checked no badge")
		require.NotContains(t, string(r.Raw), `class="verdict v-invalid"`, "nor is it a verdict on one")
	}
}

// TestCertificate_TellsTheTruth: the certificate says which facts are signed, follows the mail's language rule and
// ?lang, dates name their zone, and a revoked or expired badge's certificate says so on its face: the kept copy of
// the valid certificate is never served once the state changed.
func TestCertificate_TellsTheTruth(t *testing.T) {
	f := newPageFixture(t)
	// Real time: a cancel compares the expiry with the database's clock.
	now := time.Now().UTC().Truncate(time.Second)
	f.clock.Set(now)
	issuedAt := now.Add(-48 * time.Hour).Format(time.RFC3339)
	rows := f.issueSigned(t, issuedAt, true, "Alice Park", "김민수")
	old := f.issueSigned(t, issuedAt, false, "Old Record")["Old Record"]
	alice, kim := rows["Alice Park"], rows["김민수"]
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	issued, expires := alice.IssuedAt.In(seoul), alice.ExpiredAt.In(seoul)
	require.Equal(t, 0, expires.Hour()+expires.Minute(), "a relative expiry falls at 00:00 in Seoul")
	koDate := func(t time.Time) string { return fmt.Sprintf("%d년 %d월 %d일", t.Year(), t.Month(), t.Day()) }
	public := func(a db.Assertion, query string) string {
		return "/credentials/" + a.ID.String() + "/certificate.pdf?token=" + a.CertificateToken.String() + query
	}
	apiPDF := "/public/v3/assertions/" + alice.ID.String() + "/pdf"

	// English names, English certificate (as the mail); Hangul in the recipient's name, Korean; ?lang wins.
	text := f.certificateText(t, public(alice, ""), "")
	require.Contains(t, text, "Certificate of Achievement")
	require.Contains(t, text, "Alice Park")
	require.Contains(t, text, "Issued on "+issued.Format("January 2, 2006")+" (KST)")
	require.Contains(t, text, "Expires on "+expires.Format("January 2, 2006")+" at 00:00 (KST)")
	require.Contains(t, text, "The recipient's name, the badge, the issuer and the dates above are signed in the Open Badges credential.")
	require.NotContains(t, text, "REVOKED")
	require.Contains(t, f.certificateText(t, public(kim, ""), ""), "디지털 배지 인증서")
	require.Contains(t, f.certificateText(t, public(kim, ""), ""), "발급일 "+koDate(issued)+" (KST)")
	require.Contains(t, f.certificateText(t, public(alice, "&lang=ko"), ""), "디지털 배지 인증서")
	require.Contains(t, f.certificateText(t, public(kim, "&lang=en"), ""), "Certificate of Achievement")
	require.Contains(t, f.certificateText(t, apiPDF+"?lang=ko", f.keys["viewer"]), "디지털 배지 인증서")

	// A credential signed before names were: the name is the issuer's record.
	require.Contains(t, f.certificateText(t, public(old, ""), ""), "the recipient's name is from the issuer's records")

	// Revoked: both routes stamp it, with the date and the reason, though the valid one was rendered and kept.
	r := f.do(t, http.MethodPost, "/public/v3/assertions/"+alice.ID.String()+"/cancel", f.keys["manager"], `{"reason":"Awarded by mistake"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	for _, got := range []string{f.certificateText(t, public(alice, ""), ""), f.certificateText(t, apiPDF, f.keys["viewer"])} {
		require.Contains(t, got, "REVOKED · This badge was revoked on ")
		require.Contains(t, got, "(KST). The issuer revoked it because: Awarded by mistake")
	}
	require.Contains(t, f.certificateText(t, public(alice, "&lang=ko"), ""), "취소됨 · 이 배지는 ")

	// Expired, by the signed validUntil.
	require.NotContains(t, f.certificateText(t, public(kim, ""), ""), "만료됨")
	f.clock.Set(*kim.ExpiredAt)
	require.Contains(t, f.certificateText(t, public(kim, ""), ""), "만료됨 · 이 배지는 "+koDate(expires)+" (KST)에 만료되었습니다")
}
