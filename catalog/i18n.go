package catalog

import (
	"fmt"

	"github.com/badged/badged/internal/pagekit"
)

// msg returns the message key of lang formatted with args; a key missing from the table shows as itself, which
// TestMessages_SameKeys catches.
func msg(lang, key string, args ...any) string {
	s, ok := messages[lang][key]
	if !ok {
		return key
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// messages are the pages' strings, one table per language (pagekit's languages).
var messages = map[string]map[string]string{
	pagekit.LangEN: {
		"page.skip":           "Skip to the content",
		"page.languages":      "Language",
		"page.footer":         "Badges issued here are Open Badges 3.0 credentials: each has its own page, and any compatible verifier can check them.",
		"page.logo":           "Logo of %s",
		"notfound.title":      "Not found",
		"notfound.heading":    "We could not find this page",
		"notfound.detail":     "No organization or badge has this address. Check that the link is complete.",
		"root.title":          "Open Badges issuer",
		"root.heading":        "This service issues Open Badges 3.0 credentials",
		"root.detail":         "Each credential it issues has its own page, and each issuing organization and badge has one too: follow the links in a credential. Credentials marked as test were made to try the service and prove nothing.",
		"org.title":           "%s: badges",
		"org.metaDescription": "The badges %s issues as Open Badges 3.0 credentials.",
		"org.website":         "Website",
		"org.programs":        "Programs and their badges",
		"org.programCount":    "%d programs",
		"org.noPrograms":      "This organization shows no programs yet.",
		"org.noBadges":        "No published badges in this program yet.",
		"org.pager":           "Pages of programs",
		"org.pageOf":          "Page %d of %d",
		"org.prev":            "Previous page",
		"org.next":            "Next page",
		"badge.title":         "%s, a badge of %s",
		"badge.image":         "Badge image: %s",
		"badge.holders":       "Holders now: %d",
		"badge.about":         "About this badge",
		"section.criteria":    "How to earn it",
		"section.skills":      "Skills",
		"section.expiry":      "Validity",
		"section.issuer":      "Issuer",
		"section.programs":    "Programs",
		"badge.issuerPage":    "All badges of %s",
		"badge.machine":       "Machines reading %s get this badge as an Open Badges 3.0 Achievement (JSON-LD).",
		"expiry.never":        "Credentials of this badge do not expire.",
		"expiry.relative":     "Each credential is valid for %d months after it is issued.",
		"expiry.relative1":    "Each credential is valid for one month after it is issued.",
		"expiry.fixed":        "Credentials of this badge are valid until %s.",
	},
	pagekit.LangKO: {
		"page.skip":           "본문으로 건너뛰기",
		"page.languages":      "언어",
		"page.footer":         "이곳에서 발급한 배지는 Open Badges 3.0 자격 증명입니다. 배지마다 고유한 페이지가 있으며, 호환되는 어떤 검증기로도 확인할 수 있습니다.",
		"page.logo":           "%s 로고",
		"notfound.title":      "찾을 수 없음",
		"notfound.heading":    "이 페이지를 찾을 수 없습니다",
		"notfound.detail":     "이 주소의 기관이나 배지가 없습니다. 링크가 완전한지 확인하세요.",
		"root.title":          "Open Badges 발급 서비스",
		"root.heading":        "이 서비스는 Open Badges 3.0 자격 증명을 발급합니다",
		"root.detail":         "발급한 자격 증명마다 고유한 페이지가 있고, 발급 기관과 배지마다 페이지가 있습니다. 자격 증명 안의 링크를 따라가세요. 테스트로 표시된 자격 증명은 서비스를 시험하려고 만든 것이며 아무것도 증명하지 않습니다.",
		"org.title":           "%s: 배지",
		"org.metaDescription": "%s에서 Open Badges 3.0 자격 증명으로 발급하는 배지입니다.",
		"org.website":         "웹사이트",
		"org.programs":        "프로그램과 배지",
		"org.programCount":    "프로그램 %d개",
		"org.noPrograms":      "이 기관이 공개한 프로그램이 아직 없습니다.",
		"org.noBadges":        "이 프로그램에 공개된 배지가 아직 없습니다.",
		"org.pager":           "프로그램 페이지",
		"org.pageOf":          "%d / %d 페이지",
		"org.prev":            "이전 페이지",
		"org.next":            "다음 페이지",
		"badge.title":         "%s (%s의 배지)",
		"badge.image":         "배지 이미지: %s",
		"badge.holders":       "현재 보유자: %d명",
		"badge.about":         "배지 소개",
		"section.criteria":    "취득 기준",
		"section.skills":      "역량",
		"section.expiry":      "유효 기간",
		"section.issuer":      "발급 기관",
		"section.programs":    "프로그램",
		"badge.issuerPage":    "%s의 모든 배지",
		"badge.machine":       "기계가 %s 주소를 읽으면 이 배지를 Open Badges 3.0 Achievement(JSON-LD)로 받습니다.",
		"expiry.never":        "이 배지의 자격 증명은 만료되지 않습니다.",
		"expiry.relative":     "각 자격 증명은 발급 후 %d개월 동안 유효합니다.",
		"expiry.relative1":    "각 자격 증명은 발급 후 1개월 동안 유효합니다.",
		"expiry.fixed":        "이 배지의 자격 증명은 %s까지 유효합니다.",
	},
}
