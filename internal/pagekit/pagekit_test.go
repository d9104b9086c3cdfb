package pagekit

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
)

func TestPickLang(t *testing.T) {
	for _, c := range []struct{ query, accept, want string }{
		{"", "", LangEN},
		{"", "ko-KR,ko;q=0.9,en;q=0.8", LangKO},
		{"", "fr, en;q=0.3, ko;q=0.5", LangKO},
		{"lang=en", "ko", LangEN},
		{"lang=xx", "ko", LangKO},
	} {
		r := httptest.NewRequest("GET", "/?"+c.query, nil)
		r.Header.Set("Accept-Language", c.accept)
		if got := PickLang(r); got != c.want {
			t.Errorf("PickLang(%q, %q) = %s, want %s", c.query, c.accept, got, c.want)
		}
	}
}

// TestLanguageLinks_KeepPage: the switch keeps a pager's page and replaces the language.
func TestLanguageLinks_KeepPage(t *testing.T) {
	links := LanguageLinks(LangKO, url.Values{"page": {"3"}, "lang": {"ko"}})
	if len(links) != 2 || links[0].URL != "?lang=en&page=3" || !links[1].Current || links[1].Label != "한국어" {
		t.Fatalf("links = %+v", links)
	}
}

// TestWrite_NoHalfPage: a template that fails answers nothing, and the caller's "pagestyle" joins the one stylesheet.
func TestWrite_NoHalfPage(t *testing.T) {
	tm := Parse(fstest.MapFS{"p.html": {Data: []byte(`{{define "pagestyle"}}.mine{}{{end}}{{define "p"}}<html>{{template "head" .}}</html>{{end}}{{define "bad"}}x{{.Nope}}{{end}}`)}}, "*.html")
	w := httptest.NewRecorder()
	if err := Write(w, tm, 200, "bad", Chrome{}, CSP("")); err == nil || w.Body.Len() != 0 {
		t.Fatalf("err %v, body %q", err, w.Body.String())
	}
	w = httptest.NewRecorder()
	if err := Write(w, tm, 200, "p", Chrome{Title: "T"}, CSP("")); err != nil {
		t.Fatal(err)
	}
	if body := w.Body.String(); !strings.Contains(body, ".mine{}") || !strings.Contains(body, "<title>T</title>") || w.Header().Get("Vary") == "" {
		t.Fatalf("body %q headers %v", body, w.Header())
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-cache" {
		t.Fatalf("Cache-Control %q, want no-cache", cc)
	}
	// A private page's no-store is not weakened to no-cache.
	w = httptest.NewRecorder()
	w.Header().Set("Cache-Control", "no-store")
	if err := Write(w, tm, 200, "p", Chrome{Title: "T"}, CSP("")); err != nil || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("err %v, Cache-Control %q", err, w.Header().Get("Cache-Control"))
	}
}
