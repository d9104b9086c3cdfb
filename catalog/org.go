package catalog

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/safetext"
)

// orgView is everything the organization's page shows; every string already in the page's language.
type orgView struct {
	pagekit.Chrome
	Name, Description, Website string
	Logo, LogoAlt              string // "" shows none
	Programs                   []programView
	ProgramCount               int64
	Prev, Next                 string // the pager's links; "" when there is none that way
	PageLabel                  string // "Page 2 of 21"; "" on a single page
	Meta                       meta
	T                          func(key string, args ...any) string
}

type programView struct {
	ID, Name, Description string
	Badges                []badgeCard
}

// badgeCard is a badge as a list shows it.
type badgeCard struct {
	Name, Line, URL, Image, ImageAlt string
	Skills                           []string
	Holders                          string
}

// meta are the Open Graph values of a page.
type meta struct{ Title, Description, URL, Image, ImageAlt, Locale string }

// OrgPage answers the organization's page at its issuer id (GET /issuers/{orgId} asked for HTML; api decides). It
// shows the programs the organization made visible (isVisibleAtOrganizationPage), ProgramsPerPage a page (?page=),
// each with its published badges and how many hold each now. An unknown organization, or a page past the last,
// is the 404 page.
func (h *Handler) OrgPage(w http.ResponseWriter, r *http.Request) error {
	lang := pagekit.PickLang(r)
	id, ok := parseID(r, "orgId")
	if !ok {
		return h.notFound(w, lang)
	}
	ctx := r.Context()
	org, err := h.db.GetOrganization(ctx, id)
	if db.IsNotFound(err) {
		return h.notFound(w, lang)
	}
	if err != nil {
		return err
	}
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		page, err = strconv.Atoi(p)
		if err != nil || page < 1 || page > 1_000_000 {
			return h.notFound(w, lang)
		}
	}
	progs, err := h.db.ListOrgPagePrograms(ctx, db.ListOrgPageProgramsParams{OrgID: id, Lim: ProgramsPerPage, Off: int32((page - 1) * ProgramsPerPage)})
	if err != nil {
		return err
	}
	if len(progs) == 0 && page > 1 { // past the last page
		return h.notFound(w, lang)
	}
	var total int64
	if len(progs) > 0 {
		total = progs[0].Total
	}
	pages := max(1, int((total+ProgramsPerPage-1)/ProgramsPerPage))
	ids := make([]uuid.UUID, len(progs))
	for i, p := range progs {
		ids[i] = p.ID
	}
	badges, err := h.db.ListProgramPageBadges(ctx, ids)
	if err != nil {
		return err
	}
	v := h.orgView(org, lang, total)
	byProgram := map[uuid.UUID][]badgeCard{}
	for _, b := range badges {
		byProgram[b.ProgramID] = append(byProgram[b.ProgramID], h.card(lang, b.ID, b.Name, b.Description, b.ImageID, b.Skills, b.Holders))
	}
	for _, p := range progs {
		v.Programs = append(v.Programs, programView{ID: p.ID.String(), Name: safetext.Display(p.Name),
			Description: oneLine(deref(p.Description), 300), Badges: byProgram[p.ID]})
	}
	if pages > 1 {
		v.PageLabel = msg(lang, "org.pageOf", page, pages)
		v.Languages = pagekit.LanguageLinks(lang, url.Values{"page": {strconv.Itoa(page)}})
		if page > 1 {
			v.Prev = "?" + url.Values{"lang": {lang}, "page": {strconv.Itoa(page - 1)}}.Encode()
		}
		if page < pages {
			v.Next = "?" + url.Values{"lang": {lang}, "page": {strconv.Itoa(page + 1)}}.Encode()
		}
	}
	return h.write(w, http.StatusOK, "org", v)
}

// orgView is the organization's part of its page: name, logo, website, description, Open Graph.
func (h *Handler) orgView(org db.Organization, lang string, programs int64) orgView {
	name := safetext.Display(org.Name)
	pageURL := h.urls.OrgPageURL(org.ID)
	v := orgView{Chrome: h.chrome(lang, msg(lang, "org.title", name), name, org.LogoMediaID, pageURL), Name: name,
		Description: deref(org.Description), Website: deref(org.WebsiteUrl), ProgramCount: programs,
		T: func(key string, args ...any) string { return msg(lang, key, args...) }}
	desc := oneLine(v.Description, 200)
	if desc == "" {
		desc = msg(lang, "org.metaDescription", name)
	}
	v.Meta = meta{Title: name, Description: desc, URL: pageURL, Locale: pagekit.OGLocale(lang)}
	if org.LogoMediaID != nil {
		v.Logo, v.LogoAlt = mediaPath(*org.LogoMediaID, "medium"), msg(lang, "page.logo", name)
		v.Meta.Image, v.Meta.ImageAlt = h.urls.BaseURL+mediaPath(*org.LogoMediaID, "medium"), v.LogoAlt
	}
	return v
}

// card is a badge as the organization's page lists it: image, name, a line of description, skills, holders.
func (h *Handler) card(lang string, id uuid.UUID, name, description string, image uuid.UUID, skills []byte, holders int64) badgeCard {
	name = safetext.Display(name)
	return badgeCard{Name: name, Line: oneLine(description, 140), URL: h.urls.AchievementID(id),
		Image: mediaPath(image, "small"), ImageAlt: msg(lang, "badge.image", name), Skills: skillNames(skills),
		Holders: msg(lang, "badge.holders", holders)}
}
