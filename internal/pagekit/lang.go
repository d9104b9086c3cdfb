package pagekit

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The pages speak English and Korean.
const (
	LangEN = "en"
	LangKO = "ko"
)

// Langs are the pages' languages in the order the language switch lists them; the first is the default.
var Langs = []string{LangEN, LangKO}

// langNames are the languages' own names, as the switch shows them in every language.
var langNames = map[string]string{LangEN: "English", LangKO: "한국어"}

// OGLocale is the Open Graph locale of a language (og:locale).
func OGLocale(lang string) string {
	if lang == LangKO {
		return "ko_KR"
	}
	return "en_US"
}

// PickLang chooses the page language: ?lang= when it names a supported language, else the Accept-Language entry
// of highest weight that is one, else English (the default for a page shared with anyone).
func PickLang(r *http.Request) string {
	if q := strings.ToLower(r.URL.Query().Get("lang")); q == LangEN || q == LangKO {
		return q
	}
	type pref struct {
		lang string
		q    float64
	}
	var prefs []pref
	for i, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		if i >= 20 { // a header is not a place for a long list; the first entries decide
			break
		}
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1 {
				continue
			}
			q = f
		}
		if (primary == LangEN || primary == LangKO) && q > 0 {
			prefs = append(prefs, pref{primary, q})
		}
	}
	sort.SliceStable(prefs, func(i, j int) bool { return prefs[i].q > prefs[j].q })
	if len(prefs) > 0 {
		return prefs[0].lang
	}
	return LangEN
}

// Link is a link a page offers: a language of the switch, a download, a pager's next page.
type Link struct {
	Label, URL, Lang string
	Current          bool
}

// LanguageLinks is the language switch: every language, the current one marked. Each link is a relative
// "?lang=xx" that keeps the query parameters in keep (a pager's page, say); nil keeps none.
func LanguageLinks(lang string, keep url.Values) []Link {
	out := make([]Link, len(Langs))
	for i, l := range Langs {
		q := url.Values{}
		for k, vs := range keep {
			if k != "lang" {
				q[k] = vs
			}
		}
		q.Set("lang", l)
		out[i] = Link{Label: langNames[l], URL: "?" + q.Encode(), Lang: l, Current: l == lang}
	}
	return out
}
