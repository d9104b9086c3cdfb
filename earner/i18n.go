package earner

import "github.com/badged/badged/internal/pagekit"

// messages are every string the earner's pages show, one table per language (TestMessages_SameKeys keeps them in
// step). Templates read them as .T.key.
var messages = map[string]map[string]string{
	pagekit.LangEN: {
		"skip": "Skip to the content", "languages": "Language", "brand": "badged", "footer": "Your badges, issued with badged.",
		"signin_title": "Your badges", "signin_lead": "Sign in with the e-mail address your badges were sent to. We mail you a link; no password.",
		"signin_email": "E-mail address", "signin_submit": "Mail me a sign-in link",
		"signin_bad": "That is not an e-mail address we can send to. Check it and try again.",
		"sent_title": "Check your mail", "sent_lead": "If badges were issued to that address, a sign-in link is on its way. It works once, for 15 minutes.",
		"sent_again": "Nothing arrived? Ask again",
		"link_title": "Sign in", "link_lead": "Press the button to sign in to your badges on this device.", "link_submit": "Sign in",
		"link_invalid_title": "This sign-in link no longer works", "link_invalid_lead": "A link works once and for 15 minutes. Ask for a fresh one below.",
		"coll_title": "Your badges", "coll_signedin": "Signed in as", "coll_active": "Your badges", "coll_inactive": "Revoked and expired",
		"coll_inactive_lead": "These badges no longer count as valid; they stay here so you know what happened to them.",
		"coll_none":          "No badges were issued to this address yet.",
		"coll_issuer":        "Issuer", "coll_date": "Issued", "coll_status": "Status", "coll_page": "Badge page",
		"coll_json": "Credential (JSON)", "coll_baked": "Baked image", "coll_pdf": "PDF certificate", "coll_share": "Share on LinkedIn", "coll_wallet": "Add to a wallet app",
		"coll_show": "Show on my public profile", "coll_private": "Make this badge's page private", "coll_save": "Save",
		"coll_export": "Download everything (zip)", "coll_signout": "Sign out", "coll_signout_all": "Sign out everywhere",
		"status_ISSUED": "Valid", "status_RECEIVED": "Valid", "status_REISSUED": "Replaced by a reissue", "status_REVOKED": "Revoked",
		"status_EXPIRED": "Expired",
		"prof_title":     "Public profile", "prof_lead": "Off by default. When on, anyone with the link sees the badges you choose to show, and nothing else.",
		"prof_handle": "Handle (3–30 characters: a–z, 0–9, hyphen)", "prof_public": "Make my profile public", "prof_save": "Save profile",
		"prof_link": "Your profile", "prof_bad": "A handle is 3 to 30 characters of a–z, 0–9 and hyphens, not starting or ending with a hyphen.",
		"prof_taken": "That handle is taken. Choose another.", "prof_needhandle": "Choose a handle before making the profile public.",
		"prof_badges": "Badges", "prof_none": "No badges shown yet.",
		"err_csrf": "This form expired. Reload the page and try again.", "err_notfound": "Not found",
		"err_notfound_lead": "There is no such profile, or it is not public.", "err_form": "The form could not be read.",
		"home": "Back to your badges", "pager": "Pages", "pager_prev": "Previous page", "pager_next": "Next page",
	},
	pagekit.LangKO: {
		"skip": "본문으로 건너뛰기", "languages": "언어", "brand": "badged", "footer": "badged로 발급된 나의 배지.",
		"signin_title": "나의 배지", "signin_lead": "배지를 받은 이메일 주소로 로그인하세요. 비밀번호 없이 로그인 링크를 메일로 보내 드립니다.",
		"signin_email": "이메일 주소", "signin_submit": "로그인 링크 받기",
		"signin_bad": "메일을 보낼 수 있는 이메일 주소가 아닙니다. 확인 후 다시 시도하세요.",
		"sent_title": "메일을 확인하세요", "sent_lead": "이 주소로 발급된 배지가 있다면 로그인 링크를 보냈습니다. 링크는 15분 동안 한 번만 쓸 수 있습니다.",
		"sent_again": "메일이 오지 않았나요? 다시 요청",
		"link_title": "로그인", "link_lead": "이 기기에서 나의 배지에 로그인하려면 버튼을 누르세요.", "link_submit": "로그인",
		"link_invalid_title": "이 로그인 링크는 더 이상 쓸 수 없습니다", "link_invalid_lead": "링크는 15분 동안 한 번만 쓸 수 있습니다. 아래에서 새 링크를 요청하세요.",
		"coll_title": "나의 배지", "coll_signedin": "로그인 주소", "coll_active": "나의 배지", "coll_inactive": "취소·만료된 배지",
		"coll_inactive_lead": "더 이상 유효하지 않은 배지입니다. 어떻게 되었는지 알 수 있도록 여기에 남겨 둡니다.",
		"coll_none":          "이 주소로 발급된 배지가 아직 없습니다.",
		"coll_issuer":        "발급 기관", "coll_date": "발급일", "coll_status": "상태", "coll_page": "배지 페이지",
		"coll_json": "자격 증명(JSON)", "coll_baked": "배지 이미지", "coll_pdf": "PDF 인증서", "coll_share": "LinkedIn에 공유", "coll_wallet": "지갑 앱에 담기",
		"coll_show": "공개 프로필에 표시", "coll_private": "이 배지 페이지를 비공개로", "coll_save": "저장",
		"coll_export": "전체 내려받기(zip)", "coll_signout": "로그아웃", "coll_signout_all": "모든 기기에서 로그아웃",
		"status_ISSUED": "유효", "status_RECEIVED": "유효", "status_REISSUED": "재발급으로 대체됨", "status_REVOKED": "취소됨",
		"status_EXPIRED": "만료됨",
		"prof_title":     "공개 프로필", "prof_lead": "기본은 꺼져 있습니다. 켜면 링크를 아는 누구나 내가 표시하기로 한 배지만 볼 수 있습니다.",
		"prof_handle": "핸들(3–30자: a–z, 0–9, 하이픈)", "prof_public": "프로필 공개", "prof_save": "프로필 저장",
		"prof_link": "내 프로필", "prof_bad": "핸들은 a–z, 0–9, 하이픈으로 된 3–30자이며 하이픈으로 시작하거나 끝날 수 없습니다.",
		"prof_taken": "이미 쓰이는 핸들입니다. 다른 핸들을 고르세요.", "prof_needhandle": "프로필을 공개하려면 먼저 핸들을 정하세요.",
		"prof_badges": "배지", "prof_none": "아직 표시한 배지가 없습니다.",
		"err_csrf": "양식이 만료되었습니다. 페이지를 새로 고친 뒤 다시 시도하세요.", "err_notfound": "찾을 수 없음",
		"err_notfound_lead": "그런 프로필이 없거나 공개되지 않았습니다.", "err_form": "양식을 읽을 수 없습니다.",
		"home": "나의 배지로 돌아가기", "pager": "페이지", "pager_prev": "이전 페이지", "pager_next": "다음 페이지",
	},
}

// texts is lang's table (English for anything else).
func texts(lang string) map[string]string {
	if t, ok := messages[lang]; ok {
		return t
	}
	return messages[pagekit.LangEN]
}
