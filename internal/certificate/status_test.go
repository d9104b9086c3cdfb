package certificate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// oneLine joins pdftotext's lines and spaces, so that a sentence wrapped on the page reads whole.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestRender_Status: a certificate of a badge that is no longer valid says so on its face, in its language: the
// stamp word and the sentence under the title (and the document title); a valid one carries no stamp.
func TestRender_Status(t *testing.T) {
	for _, c := range []struct {
		lang       Lang
		kind       StatusKind
		text, word string
	}{
		{LangKO, StatusRevoked, "이 배지는 2026년 3월 3일 (KST)에 취소되었습니다. 취소 사유: 최종 과제 미제출", "취소됨"},
		{LangKO, StatusExpired, "이 배지는 2027년 3월 1일 (KST)에 만료되었습니다", "만료됨"},
		{LangKO, StatusReplaced, "이 배지는 새 배지로 대체되었습니다", "대체됨"},
		{LangKO, StatusUnverified, "이 배지를 검증할 수 없습니다", "검증 실패"},
		{LangEN, StatusRevoked, "This badge was revoked on March 3, 2026 (KST). The issuer revoked it because: a mistake", "REVOKED"},
		{LangEN, StatusExpired, "This badge expired on March 1, 2027 (KST)", "EXPIRED"},
		{LangEN, StatusReplaced, "This badge was replaced by a newer badge", "REPLACED"},
		{LangEN, StatusUnverified, "This badge could not be verified", "NOT VERIFIED"},
	} {
		t.Run(string(c.lang)+" "+string(c.kind), func(t *testing.T) {
			in := koreanInput(t)
			in.Lang, in.Status = c.lang, Status{Kind: c.kind, Text: c.text}
			pdf, err := Render(in)
			require.NoError(t, err)
			text := oneLine(pdfText(t, pdf))
			require.Contains(t, text, c.word+" · "+c.text)
		})
	}
	for _, lang := range []Lang{LangKO, LangEN} {
		in := koreanInput(t)
		in.Lang = lang
		pdf, err := Render(in)
		require.NoError(t, err)
		text := pdfText(t, pdf)
		for _, word := range []string{"취소됨", "만료됨", "대체됨", "검증 실패", "REVOKED", "EXPIRED", "REPLACED", "NOT VERIFIED"} {
			require.NotContains(t, text, word, "a valid badge is not stamped")
		}
	}
	in := koreanInput(t)
	in.Status.Kind = "suspended"
	_, err := Render(in)
	require.ErrorIs(t, err, ErrInvalidInput)
}

// TestRender_Provenance: the foot of the certificate says which of its facts the credential signs.
func TestRender_Provenance(t *testing.T) {
	for _, c := range []struct {
		lang Lang
		p    Provenance
		want string
	}{
		{LangEN, ProvenanceSigned, "The recipient's name, the badge, the issuer and the dates above are signed in the Open Badges credential."},
		{LangEN, ProvenanceSignedNoName, "the recipient's name is from the issuer's records"},
		{LangEN, ProvenanceRecords, "The details above are from the issuer's records"},
		{LangKO, ProvenanceSigned, "위 수령인 이름, 배지, 발급 기관, 날짜는 Open Badges 자격 증명에 서명되어 있습니다."},
		{LangKO, ProvenanceSignedNoName, "수령인 이름은 발급 기관의 기록에 따른 것입니다"},
		{LangKO, ProvenanceRecords, "위 정보는 발급 기관의 기록에 따른 것입니다."},
	} {
		in := koreanInput(t)
		in.Lang, in.Provenance = c.lang, c.p
		pdf, err := Render(in)
		require.NoError(t, err)
		require.Contains(t, oneLine(pdfText(t, pdf)), c.want, "%s %d", c.lang, c.p)
	}
	in := koreanInput(t)
	in.Provenance = 7
	_, err := Render(in)
	require.ErrorIs(t, err, ErrInvalidInput)
}
