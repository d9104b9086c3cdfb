package console

import (
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/badged/badged/internal/pagekit"
)

//go:embed templates/*.html
var templatesFS embed.FS

// pages are the console's templates, one set per page: each page's "content" over the shared "layout".
var pages = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, name := range []string{"keys", "key_created", "members", "orgs", "issuances", "issuance", "credits", "audit", "signin"} {
		m[name] = pagekit.Parse(templatesFS, "templates/layout.html", "templates/"+name+".html")
	}
	return m
}()

// csp is the pages' policy: pagekit's (no script, no other host) but forms may post to the console itself.
const csp = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// view is what every console page has: the chrome, the words in its language, who acts, and the CSRF token.
type view struct {
	pagekit.Chrome
	T       map[string]string
	Nav     []navLink
	OrgName string
	Email   string
	Role    string
	CSRF    string
	CanEdit bool // manager or owner
	IsOwner bool
	Page    any // the page's own data
}

type navLink struct {
	Label, URL string
	Current    bool
}

// newView builds the common part of a page titled by the text key title.
func (h *Handler) newView(r *http.Request, a actor, title string, page any) view {
	lang := pagekit.PickLang(r)
	t := text[lang]
	v := view{T: t, OrgName: a.OrgName, Email: a.Email, Role: a.Role, CSRF: a.CSRF, Page: page,
		CanEdit: a.can("ORG_MANAGER"), IsOwner: a.can("ORG_OWNER")}
	v.Chrome = pagekit.Chrome{Lang: lang, Title: t[title] + " · " + t["console"], Skip: t["skip"], LanguagesLabel: t["languages"],
		BrandName: "badged " + t["console"], BrandURL: "/console/", Languages: pagekit.LanguageLinks(lang, keep(r)), Footer: t["footer"]}
	for _, n := range []struct{ key, url, min string }{
		{"issuances", "/console/issuances", "ORG_VIEWER"}, {"keys", "/console/keys", "ORG_VIEWER"},
		{"members", "/console/members", "ORG_VIEWER"}, {"credits", "/console/credits", "ORG_VIEWER"},
		{"audit", "/console/audit", "ORG_OWNER"},
	} {
		if a.Role != "" && a.can(n.min) {
			v.Nav = append(v.Nav, navLink{Label: t[n.key], URL: n.url, Current: n.key == title})
		}
	}
	return v
}

// keep is the query a language switch keeps (the page's filters), without lang itself.
func keep(r *http.Request) url.Values {
	q := r.URL.Query()
	q.Del("lang")
	return q
}

// render answers the page name with v.
func (h *Handler) render(w http.ResponseWriter, status int, name string, v view) error {
	w.Header().Set("Cache-Control", "no-store") // keys and members: nothing of the console is cached
	w.Header().Set("Referrer-Policy", "same-origin")
	return pagekit.Write(w, pages[name], status, "page", v, csp)
}

// notice answers a one-message page: status and the text key msg.
func (h *Handler) notice(w http.ResponseWriter, r *http.Request, status int, msg string) {
	t := text[pagekit.PickLang(r)]
	h.noticeText(w, r, status, t[msg+"Title"], t[msg])
}

// noticeText answers a one-message page of status with heading and detail as given.
func (h *Handler) noticeText(w http.ResponseWriter, r *http.Request, status int, heading, detail string) {
	lang := pagekit.PickLang(r)
	t := text[lang]
	kind := "invalid"
	if status == http.StatusNotFound {
		kind = "notfound"
	}
	n := pagekit.Notice{Kind: kind, Heading: heading, Detail: detail, Link: "/console/", LinkText: t["backHome"], NoIndex: true,
		Chrome: pagekit.Chrome{Lang: lang, Title: heading + " · " + t["console"], Skip: t["skip"], LanguagesLabel: t["languages"],
			BrandName: "badged " + t["console"], BrandURL: "/console/", Languages: pagekit.LanguageLinks(lang, keep(r)), Footer: t["footer"]}}
	w.Header().Set("Cache-Control", "no-store")
	if err := pagekit.Write(w, pagekit.Parse(nil), status, "notice", n, csp); err != nil {
		http.Error(w, http.StatusText(status), status)
	}
}

// timeOf formats t for the page, in the console's zone.
func (h *Handler) timeOf(t time.Time) string { return t.In(h.loc).Format("2006-01-02 15:04") }

// timeOfPtr formats an optional time; "" when absent.
func (h *Handler) timeOfPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return h.timeOf(*t)
}
