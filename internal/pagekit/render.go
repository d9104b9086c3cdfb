package pagekit

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/badged/badged/internal/web"
)

//go:embed templates/*.html
var kitFS embed.FS

// kit are the shared templates: "style", "head", "header", "footer" and the "notice" page.
var kit = template.Must(template.ParseFS(kitFS, "templates/*.html"))

// Parse returns pagekit's templates with the caller's (fsys, patterns as template.ParseFS) parsed over them. A
// caller may define "pagestyle" (extra CSS rules, inside the one <style>) and may not redefine the shared ones
// except on purpose. It panics on a bad template, as template.Must: templates are the program's own.
func Parse(fsys fs.FS, patterns ...string) *template.Template {
	t := template.Must(kit.Clone())
	if fsys == nil {
		return t
	}
	return template.Must(t.ParseFS(fsys, patterns...))
}

// Chrome is what the shared head, header and footer show; every string already in the page's language.
type Chrome struct {
	Lang, Title    string
	Skip           string // the skip link's text ("Skip to the badge")
	LanguagesLabel string // the language switch's accessible name
	BrandName      string
	BrandLogo      string // same-origin image path; "" shows none
	BrandLogoAlt   string
	BrandURL       string // where the brand links; "" is no link
	Languages      []Link // LanguageLinks
	Footer         string
}

// Notice is a page that says one thing: the 404 page, a link that expired. Kind picks the colour of its box
// ("notfound" is the neutral one, as the badge page's verdicts use).
type Notice struct {
	Chrome
	Kind, Heading, Detail string
	Link, LinkText        string // optional: where to go next
	NoIndex               bool   // <meta name="robots" content="noindex">
}

// CSP lets a page load only its own images and its inline style: no script, no other host. The images are its own
// origin's and imgOrigin's (the public base URL's origin, OriginOf): a server reached under another name (an
// internal hostname) must still show the absolute image URLs the pages write.
func CSP(imgOrigin string) string {
	return "default-src 'none'; img-src 'self' " + imgOrigin + " data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// OriginOf is the scheme://host of a base URL, for a CSP source; "" when it has none.
func OriginOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.ContainsAny(u.Host, " ;,'") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Write executes template name of t into a buffer first, so a template failure is the error returned with nothing
// written (a 500 from the caller's error funnel), never half a page; then it answers status with the page's
// headers: HTML, the CSP csp, revalidation on every view (the page shows the present state) unless the caller set
// a Cache-Control of its own, and Vary on Accept and Accept-Language (the same URL answers JSON to machines and a
// page in the visitor's language).
func Write(w http.ResponseWriter, t *template.Template, status int, name string, view any, csp string) error {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, view); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	if h.Get("Cache-Control") == "" { // a caller's stricter choice (no-store on a signed-in page) stands
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("Vary", web.NegotiatedVary)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}
