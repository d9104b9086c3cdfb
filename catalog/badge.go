package catalog

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/safetext"
	"github.com/badged/badged/internal/web"
)

// badgeView is everything the badge's page shows.
type badgeView struct {
	pagekit.Chrome
	Name, Description, Image, ImageAlt string
	Criteria                           []string
	Skills                             []string
	Expiry, Holders                    string
	IssuerName, IssuerURL, IssuerSite  string
	IssuerLogo, IssuerLogoAlt          string
	Programs                           []string
	AchievementURL                     string
	Meta                               meta
	T                                  func(key string, args ...any) string
}

// BadgePage answers the badge's page at its achievement id (GET /achievements/{badgeId} asked for HTML): image,
// name, description, criteria, skills, expiry policy, the issuer with a link to its page, the visible programs the
// badge belongs to and how many hold it now. An unknown, deleted or draft badge is the 404 page.
func (h *Handler) BadgePage(w http.ResponseWriter, r *http.Request) error {
	lang := pagekit.PickLang(r)
	row, found, err := h.loadBadge(r)
	if err != nil {
		return err
	}
	if !found {
		return h.notFound(w, lang)
	}
	progs, err := h.db.ListBadgeVisiblePrograms(r.Context(), row.Badge.ID)
	if err != nil {
		return err
	}
	b := row.Badge
	name, orgName := safetext.Display(b.Name), safetext.Display(row.OrgName)
	orgURL := h.urls.OrgPageURL(b.OrgID)
	v := badgeView{Chrome: h.chrome(lang, msg(lang, "badge.title", name, orgName), orgName, row.OrgLogoMediaID, orgURL),
		Name: name, Description: b.Description, Image: mediaPath(b.ImageID, "medium"), ImageAlt: msg(lang, "badge.image", name),
		Skills: skillNames(b.Skills), Expiry: h.expiryPolicy(lang, b), Holders: msg(lang, "badge.holders", row.Holders),
		IssuerName: orgName, IssuerURL: orgURL, IssuerSite: deref(row.OrgWebsiteUrl), AchievementURL: h.urls.AchievementID(b.ID),
		T: func(key string, args ...any) string { return msg(lang, key, args...) }}
	var crit []db.Criterion
	if json.Unmarshal(b.Criteria, &crit) == nil {
		for _, c := range crit {
			v.Criteria = append(v.Criteria, c.Value)
		}
	}
	for _, p := range progs {
		v.Programs = append(v.Programs, safetext.Display(p.Name))
	}
	if row.OrgLogoMediaID != nil {
		v.IssuerLogo, v.IssuerLogoAlt = mediaPath(*row.OrgLogoMediaID, "small"), msg(lang, "page.logo", orgName)
	}
	v.Meta = meta{Title: name, Description: oneLine(b.Description, 200), URL: v.AchievementURL,
		Image: h.urls.BaseURL + mediaPath(b.ImageID, "medium"), ImageAlt: v.ImageAlt, Locale: pagekit.OGLocale(lang)}
	return h.write(w, http.StatusOK, "badge", v)
}

// Achievement answers the badge's achievement id to a machine: the OB 3.0 Achievement exactly as the sign step
// embeds it in the badge's credentials today (issuer.Achievement, credential.AchievementJSON), with the
// credentials' @context. An unknown, deleted or draft badge is the contract's 404.
func (h *Handler) Achievement(w http.ResponseWriter, r *http.Request) error {
	row, found, err := h.loadBadge(r)
	if err != nil {
		return err
	}
	if !found {
		return web.NotFound("no badge %s", r.PathValue("badgeId"))
	}
	b := row.Badge
	doc := credential.AchievementDocument(h.urls.Achievement(issuer.Badge{ID: b.ID, ImageID: b.ImageID, Name: b.Name,
		Description: b.Description, Criteria: b.Criteria, Skills: b.Skills}))
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/ld+json")
	w.Header().Set("Access-Control-Allow-Origin", "*") // browser-based verifiers resolve it
	_, _ = w.Write(append(body, '\n'))
	return nil
}

// loadBadge reads the badge of the path; found is false for a malformed id and for a badge that is unknown,
// deleted or a draft (one answer, so a guess learns nothing).
func (h *Handler) loadBadge(r *http.Request) (db.GetAchievementPageRow, bool, error) {
	id, ok := parseID(r, "badgeId")
	if !ok {
		return db.GetAchievementPageRow{}, false, nil
	}
	row, err := h.db.GetAchievementPage(r.Context(), id)
	if db.IsNotFound(err) {
		return row, false, nil
	}
	return row, err == nil, err
}

// expiryPolicy says how long the badge's credentials are valid, as its expiry rule sets it.
func (h *Handler) expiryPolicy(lang string, b db.Badge) string {
	switch {
	case b.ExpirationKind != nil && *b.ExpirationKind == "RELATIVE" && b.ExpirationMonths != nil && *b.ExpirationMonths == 1:
		return msg(lang, "expiry.relative1")
	case b.ExpirationKind != nil && *b.ExpirationKind == "RELATIVE" && b.ExpirationMonths != nil:
		return msg(lang, "expiry.relative", *b.ExpirationMonths)
	case b.ExpirationKind != nil && *b.ExpirationKind == "FIXED" && b.ExpirationFixedAt != nil:
		return msg(lang, "expiry.fixed", formatDate(lang, *b.ExpirationFixedAt, h.loc))
	}
	return msg(lang, "expiry.never")
}

// formatDate writes the calendar date of t in the service time zone, in lang's usual form, naming the zone.
func formatDate(lang string, t time.Time, loc *time.Location) string {
	t = t.In(loc)
	zone, _ := t.Zone()
	if lang == pagekit.LangKO {
		return fmt.Sprintf("%d년 %d월 %d일 (%s)", t.Year(), int(t.Month()), t.Day(), zone)
	}
	return t.Format("January 2, 2006") + " (" + zone + ")"
}
