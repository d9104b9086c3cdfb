package catalog

import (
	"embed"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/safetext"
)

//go:embed templates/*.html
var catalogFS embed.FS

// templates are the organization's page (org.html) and the badge's page (badge.html) over the common look.
var templates = pagekit.Parse(catalogFS, "templates/*.html")

// Deps are what the pages need; api passes its own.
type Deps struct {
	DB       *db.DB
	URLs     *issuer.Service // the public URLs: issuer ids, achievement ids, the base URL
	Location *time.Location  // the service time zone, for a fixed expiry date
	Log      *slog.Logger
}

// Handler answers the organization's page and the badge's page. Its methods return their failure for api's error
// funnel; a page that does not exist is the 404 page (HTML), written here.
type Handler struct {
	db   *db.DB
	urls *issuer.Service
	loc  *time.Location
	log  *slog.Logger
}

// New returns the pages' handler.
func New(d Deps) *Handler {
	h := &Handler{db: d.DB, urls: d.URLs, loc: d.Location, log: d.Log}
	if h.loc == nil {
		h.loc = time.UTC
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h
}

// ProgramsPerPage is how many programs one organization page lists; more are on the next pages (?page=2).
const ProgramsPerPage = 50

// write renders a page with the pages' CSP (images of this origin and the public base URL's).
func (h *Handler) write(w http.ResponseWriter, status int, name string, view any) error {
	return pagekit.Write(w, templates, status, name, view, pagekit.CSP(pagekit.OriginOf(h.urls.BaseURL)))
}

// notFound is the 404 page of an organization or badge address that shows nothing.
func (h *Handler) notFound(w http.ResponseWriter, lang string) error {
	return h.write(w, http.StatusNotFound, "notice", pagekit.Notice{Chrome: h.chrome(lang, msg(lang, "notfound.title"), "", nil, ""),
		Kind: "notfound", Heading: msg(lang, "notfound.heading"), Detail: msg(lang, "notfound.detail"), NoIndex: true})
}

// chrome is the shared header and footer of a catalog page, the organization as its brand (brand "" shows none)
// linking to its page (brandURL).
func (h *Handler) chrome(lang, title, brand string, logo *uuid.UUID, brandURL string) pagekit.Chrome {
	c := pagekit.Chrome{Lang: lang, Title: title, Skip: msg(lang, "page.skip"), LanguagesLabel: msg(lang, "page.languages"),
		BrandName: brand, BrandURL: brandURL, Languages: pagekit.LanguageLinks(lang, nil), Footer: msg(lang, "page.footer")}
	if logo != nil {
		c.BrandLogo, c.BrandLogoAlt = mediaPath(*logo, "small"), msg(lang, "page.logo", brand)
	}
	return c
}

// mediaPath is the same-origin path of an uploaded image's variant (api serves /media/{id}/{variant}).
func mediaPath(id uuid.UUID, variant string) string { return "/media/" + id.String() + "/" + variant }

// parseID reads a UUID path value; ok is false for anything else (the 404 page, never a lookup).
func parseID(r *http.Request, name string) (uuid.UUID, bool) {
	id, err := uuid.Parse(r.PathValue(name))
	return id, err == nil
}

// oneLine is the first line of s, shortened to at most n characters with an ellipsis: a badge's description in a
// list. Names shown inside other text go through safetext.Display first.
func oneLine(s string, n int) string {
	line := s
	for i, r := range s {
		if r == '\n' || r == '\r' {
			line = s[:i]
			break
		}
	}
	r := []rune(safetext.Display(line))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// skillNames are the names of the badge's skills as its credentials state them (issuer.SignedSkills).
func skillNames(raw []byte) []string {
	var out []string
	for _, s := range issuer.SignedSkills(raw) {
		if name := safetext.Display(s.Name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
