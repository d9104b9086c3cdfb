package page

import (
	"fmt"
	"net/http"
	"time"

	"github.com/badged/badged/internal/pagekit"
)

// The badge page speaks English and Korean (pagekit's languages). Every string it shows is in pageMessages, one
// table per language, so a translator edits one place and TestPageMessages_SameKeys keeps the tables in step with
// the templates.
const (
	LangEN = pagekit.LangEN
	LangKO = pagekit.LangKO
)

// pageLangs are the page's languages in the order the language switch lists them; the first is the default.
var pageLangs = pagekit.Langs

// PickLang chooses the page language: ?lang=, then Accept-Language, else English (pagekit.PickLang).
func PickLang(r *http.Request) string { return pagekit.PickLang(r) }

// msg returns the message key of lang formatted with args. A key missing from the table shows as itself, which
// the tests catch.
func msg(lang, key string, args ...any) string {
	s, ok := pageMessages[lang][key]
	if !ok {
		return key
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// formatDate writes the calendar date of t in the service time zone (the issuer's calendar: expiry and "issued
// on" are days there) in lang's usual form, and names the zone, since the same instant is another day elsewhere.
func formatDate(lang string, t time.Time, loc *time.Location) string {
	t = t.In(loc)
	zone, _ := t.Zone()
	if lang == LangKO {
		return fmt.Sprintf("%d년 %d월 %d일 (%s)", t.Year(), int(t.Month()), t.Day(), zone)
	}
	return t.Format("January 2, 2006") + " (" + zone + ")"
}

// formatDateTime is formatDate with the time of day, for instants that fall at a set hour: an expiry is 00:00 of
// a day, which a date alone would show as a day the badge is still valid. It reads as the recipient's mail does.
func formatDateTime(lang string, t time.Time, loc *time.Location) string {
	t = t.In(loc)
	zone, _ := t.Zone()
	if lang == LangKO {
		return fmt.Sprintf("%d년 %d월 %d일 %02d:%02d (%s)", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), zone)
	}
	return t.Format("January 2, 2006 at 15:04") + " (" + zone + ")"
}

// dateTime marks a check's argument that the page writes with formatDateTime (a time.Time is written as a date).
type dateTime time.Time

// pageMessages are the page's strings. Keys group by where they show: verdict.*, field.*, check.*, criteria.*.
var pageMessages = map[string]map[string]string{
	LangEN: {
		"lang.name":                         "English",
		"page.title":                        "%s: %s",
		"page.skip":                         "Skip to the badge",
		"page.languages":                    "Language",
		"page.footer":                       "This page checked the badge itself when you opened it. The credential is an Open Badges 3.0 credential that any compatible verifier can check.",
		"notfound.footer":                   "Badges issued here are Open Badges 3.0 credentials: each has its own page, and any compatible verifier can check them.",
		"page.badgeImage":                   "Badge image: %s",
		"page.issuerLogo":                   "Logo of %s",
		"page.awardedTo":                    "Awarded to %s",
		"page.awardedToRecords":             "Awarded to %s (name from the issuer's records)",
		"verdict.valid":                     "This badge is valid",
		"verdict.validDetail":               "Issued to %s by %s on %s. The signed credential names the recipient; its signature and status were checked just now.",
		"verdict.validDetailRecords":        "Issued by %[2]s on %[3]s. The credential identifies the recipient only by a hashed identifier: the name %[1]s is from the issuer's records, not signed. The signature and status were checked just now.",
		"verdict.revoked":                   "This badge was revoked on %s",
		"verdict.revokedBecause":            "The issuer revoked it because: %s",
		"verdict.revokedNoWhy":              "The issuer gave no reason.",
		"verdict.expired":                   "This badge expired on %s",
		"verdict.expiredDetail":             "It was valid from %s until %s.",
		"verdict.replaced":                  "This badge was replaced by a newer badge",
		"verdict.replacedDetail":            "The issuer reissued it. Ask the recipient for the link to the new badge.",
		"verdict.replacedBy":                "The issuer reissued it to the same recipient.",
		"verdict.replacementLink":           "See the new badge",
		"verdict.invalid":                   "This badge could not be verified",
		"verdict.invalidDetail":             "One of the technical checks below failed. Do not rely on this badge until the issuer confirms it.",
		"certificate.invalidDetail":         "Do not rely on this certificate until the issuer confirms it; its page (QR code) shows which check failed.",
		"verdict.test":                      "Test credential — not a real badge",
		"verdict.testDetail":                "%[1]s made it with a test-mode key to try the service. It proves nothing about %[2]s: it is signed by the test issuer of %[1]s, never by its real issuer.",
		"section.details":                   "Details",
		"facts.signed":                      "Signed in the credential",
		"facts.records":                     "From the issuer's records (not signed)",
		"section.criteria":                  "Criteria",
		"section.skills":                    "Skills",
		"section.evidence":                  "Evidence",
		"section.issuer":                    "Issuer",
		"section.share":                     "Share and download",
		"section.checks":                    "Technical verification",
		"field.recipient":                   "Recipient",
		"field.badge":                       "Badge",
		"field.issuedOn":                    "Issued on",
		"field.expiresOn":                   "Expires on",
		"field.noExpiry":                    "Does not expire",
		"field.serial":                      "Serial number",
		"field.program":                     "Program",
		"field.issuer":                      "Issuer",
		"field.revokedOn":                   "Revoked on",
		"field.reason":                      "Reason",
		"field.walletSince":                 "Wallet",
		"field.walletSinceValue":            "In a wallet since %s",
		"share.linkedin":                    "Add to LinkedIn profile",
		"share.title":                       "Share",
		"share.linkedin-post":               "Post on LinkedIn",
		"share.x":                           "Post on X",
		"share.facebook":                    "Share on Facebook",
		"share.email":                       "Send by e-mail",
		"share.copyLabel":                   "Link to this badge",
		"share.copyHint":                    "Select the link and copy it.",
		"share.embedTitle":                  "Put it on your website",
		"share.embedHint":                   "Copy this HTML into your website or blog: a link and an image, no script. The image always shows the badge as it is now, so a revoked or expired badge says so.",
		"share.embedLabel":                  "HTML to copy",
		"share.embedPreview":                "This is how it looks:",
		"share.downloads":                   "Downloads",
		"share.textValid":                   "%[1]s earned the “%[2]s” badge from %[3]s.",
		"share.textState":                   "%[1]s: the “%[2]s” badge of %[3]s from %[4]s. %[5]s.",
		"share.subject":                     "“%[1]s” badge of %[2]s",
		"state.revoked":                     "REVOKED",
		"state.expired":                     "EXPIRED",
		"state.replaced":                    "REPLACED",
		"state.invalid":                     "NOT VERIFIED",
		"state.test":                        "TEST ONLY",
		"card.awarded":                      "Awarded to",
		"card.footer":                       "Check it at %s",
		"embed.alt":                         "Badge card: “%[1]s”, awarded to %[2]s by %[3]s",
		"embed.text":                        "Check this badge",
		"download.image":                    "Badge image with the credential inside (%s)",
		"download.json":                     "Credential (JSON)",
		"download.receipt":                  "Blockchain anchor receipt (JSON)",
		"checks.summary":                    "Show how this badge was checked",
		"checks.passed":                     "Passed",
		"checks.failed":                     "Failed",
		"checks.credential":                 "The signed credential is at %s.",
		"check.signature":                   "Signature",
		"check.status":                      "Revocation status",
		"check.expiry":                      "Expiry",
		"check.anchor":                      "Blockchain anchor",
		"sig.unreadable":                    "The signed credential could not be read.",
		"sig.noKey":                         "The issuer's key could not be found.",
		"sig.bad":                           "The Data Integrity proof (eddsa-rdfc-2022) does not verify: %s",
		"sig.ok":                            "Data Integrity proof eddsa-rdfc-2022 verified with the issuer's key %s.",
		"status.unreadable":                 "The status list could not be read.",
		"status.revoked":                    "The issuer has revoked this badge (its Bitstring Status List bit is set).",
		"status.ok":                         "Not revoked (Bitstring Status List entry checked).",
		"expiry.never":                      "Does not expire.",
		"expiry.until":                      "Valid until %s.",
		"expiry.past":                       "Expired on %s.",
		"anchor.none":                       "Not anchored (test issuance or anchoring disabled); the signature alone proves the credential.",
		"anchor.noCred":                     "The credential could not be read to compare it with the anchor.",
		"anchor.recorded":                   "Recorded in transaction %s, block %d of chain %d (this server has no chain connection to re-check it).",
		"anchor.badProof":                   "The stored inclusion proof is unreadable.",
		"anchor.unconfirmed":                "The anchor transaction %s could not be confirmed: %s",
		"anchor.proofOK":                    "The credential's SHA-256 is in the Merkle tree (proof of %d hashes) whose root is in transaction %s, block %d of chain %d.",
		"anchor.ok":                         "The credential's SHA-256 is in transaction %s, block %d of chain %d.",
		"criteria.PARTICIPATION_ATTENDANCE": "Participation",
		"criteria.COMPLETION":               "Completion",
		"criteria.SCORE_GRADE":              "Score or grade",
		"criteria.SUBMISSION_APPROVAL":      "Approved submission",
		"criteria.RECORD_ACHIEVEMENT":       "Record of achievement",
		"criteria.AWARD_SELECTION":          "Award or selection",
		"criteria.OTHER":                    "Other",
		"notfound.title":                    "Badge not found",
		"notfound.heading":                  "We could not find this badge",
		"notfound.detail":                   "No issued badge has this address. Check that the link is complete; if it came from a recipient, ask them for it again.",
	},
	LangKO: {
		"lang.name":                         "한국어",
		"page.title":                        "%s: %s",
		"page.skip":                         "배지 내용으로 건너뛰기",
		"page.languages":                    "언어",
		"page.footer":                       "이 페이지는 열릴 때 배지를 직접 검증했습니다. 이 자격 증명은 Open Badges 3.0 형식이므로 호환되는 어떤 검증기로도 확인할 수 있습니다.",
		"notfound.footer":                   "이곳에서 발급한 배지는 Open Badges 3.0 자격 증명입니다. 배지마다 고유한 페이지가 있으며, 호환되는 어떤 검증기로도 확인할 수 있습니다.",
		"page.badgeImage":                   "배지 이미지: %s",
		"page.issuerLogo":                   "%s 로고",
		"page.awardedTo":                    "수여 대상: %s",
		"page.awardedToRecords":             "수여 대상: %s (발급 기관 기록의 이름)",
		"verdict.valid":                     "이 배지는 유효합니다",
		"verdict.validDetail":               "%[2]s에서 %[3]s에 %[1]s 님에게 발급했습니다. 서명된 자격 증명에 수령인 이름이 들어 있으며, 서명과 상태를 방금 확인했습니다.",
		"verdict.validDetailRecords":        "%[2]s에서 %[3]s에 발급했습니다. 자격 증명은 수령인을 해시된 식별자로만 나타내므로, 이름 %[1]s은(는) 서명된 정보가 아니라 발급 기관의 기록입니다. 서명과 상태를 방금 확인했습니다.",
		"verdict.revoked":                   "이 배지는 %s에 취소되었습니다",
		"verdict.revokedBecause":            "취소 사유: %s",
		"verdict.revokedNoWhy":              "발급 기관이 취소 사유를 밝히지 않았습니다.",
		"verdict.expired":                   "이 배지는 %s에 만료되었습니다",
		"verdict.expiredDetail":             "%s부터 %s까지 유효했습니다.",
		"verdict.replaced":                  "이 배지는 새 배지로 대체되었습니다",
		"verdict.replacedDetail":            "발급 기관이 배지를 재발급했습니다. 새 배지 링크는 수령인에게 요청하세요.",
		"verdict.replacedBy":                "발급 기관이 같은 수령인에게 배지를 재발급했습니다.",
		"verdict.replacementLink":           "새 배지 보기",
		"verdict.invalid":                   "이 배지를 검증할 수 없습니다",
		"verdict.invalidDetail":             "아래 기술 검증 중 하나가 실패했습니다. 발급 기관이 확인하기 전에는 이 배지를 신뢰하지 마세요.",
		"certificate.invalidDetail":         "발급 기관이 확인하기 전에는 이 인증서를 신뢰하지 마세요. 어떤 검증이 실패했는지는 배지 페이지(QR 코드)에서 볼 수 있습니다.",
		"verdict.test":                      "테스트 인증서 — 실제 배지가 아닙니다",
		"verdict.testDetail":                "%[1]s에서 서비스를 시험하려고 테스트 모드 키로 만든 것입니다. %[2]s 님에 대해 아무것도 증명하지 않습니다. %[1]s의 실제 발급자가 아니라 테스트 발급자가 서명했습니다.",
		"section.details":                   "상세 정보",
		"facts.signed":                      "자격 증명에 서명된 정보",
		"facts.records":                     "발급 기관의 기록 (서명되지 않음)",
		"section.criteria":                  "취득 기준",
		"section.skills":                    "역량",
		"section.evidence":                  "증빙 자료",
		"section.issuer":                    "발급 기관",
		"section.share":                     "공유 및 다운로드",
		"section.checks":                    "기술 검증",
		"field.recipient":                   "수령인",
		"field.badge":                       "배지",
		"field.issuedOn":                    "발급일",
		"field.expiresOn":                   "만료일",
		"field.noExpiry":                    "만료 없음",
		"field.serial":                      "일련번호",
		"field.program":                     "프로그램",
		"field.issuer":                      "발급 기관",
		"field.revokedOn":                   "취소일",
		"field.reason":                      "취소 사유",
		"field.walletSince":                 "지갑",
		"field.walletSinceValue":            "%s부터 지갑에 보관 중",
		"share.linkedin":                    "LinkedIn 프로필에 추가",
		"share.title":                       "공유하기",
		"share.linkedin-post":               "LinkedIn에 게시",
		"share.x":                           "X에 게시",
		"share.facebook":                    "Facebook에 공유",
		"share.email":                       "이메일로 보내기",
		"share.copyLabel":                   "이 배지의 링크",
		"share.copyHint":                    "링크를 선택해 복사하세요.",
		"share.embedTitle":                  "웹사이트에 넣기",
		"share.embedHint":                   "이 HTML을 웹사이트나 블로그에 붙여 넣으세요. 스크립트 없이 링크와 이미지로만 되어 있습니다. 이미지는 늘 배지의 현재 상태를 보여 주므로, 취소되거나 만료된 배지는 그렇게 표시됩니다.",
		"share.embedLabel":                  "복사할 HTML",
		"share.embedPreview":                "이렇게 보입니다:",
		"share.downloads":                   "다운로드",
		"share.textValid":                   "%[1]s 님이 %[3]s에서 “%[2]s” 배지를 받았습니다.",
		"share.textState":                   "[%[1]s] %[4]s에서 %[3]s 님에게 발급한 “%[2]s” 배지: %[5]s.",
		"share.subject":                     "%[2]s 님의 “%[1]s” 배지",
		"state.revoked":                     "취소됨",
		"state.expired":                     "만료됨",
		"state.replaced":                    "교체됨",
		"state.invalid":                     "검증 실패",
		"state.test":                        "테스트용",
		"card.awarded":                      "수여 대상",
		"card.footer":                       "확인: %s",
		"embed.alt":                         "배지 카드: %[3]s에서 %[2]s 님에게 수여한 “%[1]s”",
		"embed.text":                        "이 배지 확인하기",
		"download.image":                    "자격 증명이 담긴 배지 이미지 (%s)",
		"download.json":                     "자격 증명 (JSON)",
		"download.receipt":                  "블록체인 기록 영수증 (JSON)",
		"checks.summary":                    "이 배지를 어떻게 검증했는지 보기",
		"checks.passed":                     "통과",
		"checks.failed":                     "실패",
		"checks.credential":                 "서명된 자격 증명 주소: %s",
		"check.signature":                   "서명",
		"check.status":                      "취소 여부",
		"check.expiry":                      "유효 기간",
		"check.anchor":                      "블록체인 기록",
		"sig.unreadable":                    "서명된 자격 증명을 읽을 수 없습니다.",
		"sig.noKey":                         "발급 기관의 키를 찾을 수 없습니다.",
		"sig.bad":                           "Data Integrity 증명(eddsa-rdfc-2022)이 맞지 않습니다: %s",
		"sig.ok":                            "발급 기관의 키 %s로 Data Integrity 증명(eddsa-rdfc-2022)을 확인했습니다.",
		"status.unreadable":                 "상태 목록을 읽을 수 없습니다.",
		"status.revoked":                    "발급 기관이 이 배지를 취소했습니다(Bitstring Status List 비트가 설정됨).",
		"status.ok":                         "취소되지 않았습니다(Bitstring Status List 항목 확인).",
		"expiry.never":                      "만료되지 않습니다.",
		"expiry.until":                      "%s까지 유효합니다.",
		"expiry.past":                       "%s에 만료되었습니다.",
		"anchor.none":                       "블록체인에 기록되지 않았습니다(테스트 발급이거나 기록 비활성). 서명만으로 자격 증명이 증명됩니다.",
		"anchor.noCred":                     "기록과 비교할 자격 증명을 읽을 수 없습니다.",
		"anchor.recorded":                   "체인 %[3]d의 블록 %[2]d, 트랜잭션 %[1]s에 기록되었습니다(이 서버는 체인에 연결되어 있지 않아 다시 확인하지 않았습니다).",
		"anchor.badProof":                   "저장된 포함 증명을 읽을 수 없습니다.",
		"anchor.unconfirmed":                "기록 트랜잭션 %s을(를) 확인할 수 없습니다: %s",
		"anchor.proofOK":                    "자격 증명의 SHA-256이 머클 트리(해시 %[1]d개의 증명)에 있고, 그 루트가 체인 %[4]d의 블록 %[3]d, 트랜잭션 %[2]s에 있습니다.",
		"anchor.ok":                         "자격 증명의 SHA-256이 체인 %[3]d의 블록 %[2]d, 트랜잭션 %[1]s에 있습니다.",
		"criteria.PARTICIPATION_ATTENDANCE": "참여·출석",
		"criteria.COMPLETION":               "이수",
		"criteria.SCORE_GRADE":              "점수·성적",
		"criteria.SUBMISSION_APPROVAL":      "과제 승인",
		"criteria.RECORD_ACHIEVEMENT":       "성취 기록",
		"criteria.AWARD_SELECTION":          "수상·선발",
		"criteria.OTHER":                    "기타",
		"notfound.title":                    "배지를 찾을 수 없음",
		"notfound.heading":                  "이 배지를 찾을 수 없습니다",
		"notfound.detail":                   "이 주소로 발급된 배지가 없습니다. 링크가 완전한지 확인하고, 수령인에게서 받은 링크라면 다시 요청하세요.",
	},
}
