package signin

import "fmt"

// DefaultText is the sign-in mail of the earner's collection and the console, in Korean unless lang is "en".
func DefaultText(lang, link string) (subject, body string) {
	if lang == "en" {
		return "Your sign-in link", fmt.Sprintf("Someone (you, we hope) asked to sign in with this address.\n\n"+
			"Open this link within 15 minutes to sign in; it works once:\n\n%s\n\n"+
			"If you did not ask, ignore this mail: nothing happens without the link.\n", link)
	}
	return "로그인 링크", fmt.Sprintf("이 주소로 로그인 요청이 있었습니다.\n\n"+
		"15분 안에 아래 링크를 열어 로그인하세요. 링크는 한 번만 쓸 수 있습니다.\n\n%s\n\n"+
		"요청하지 않으셨다면 이 메일을 무시하세요. 링크 없이는 아무 일도 일어나지 않습니다.\n", link)
}
