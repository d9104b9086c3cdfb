package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/stats"
)

// countEvent records one event about a served assertion (internal/stats): only GETs count (a HEAD, or a
// cache's revalidation by HEAD, is no view), and the recorder never touches the database on the request path.
func (h *handler) countEvent(r *http.Request, a db.Assertion, kind stats.Kind) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return
	}
	h.stats.Record(subjectOf(a), kind, r.UserAgent())
}

func subjectOf(a db.Assertion) stats.Subject {
	return stats.Subject{Assertion: a.ID, Org: a.OrgID, Badge: a.BadgeID, Program: a.ProgramID, Issuance: a.IssuanceID, Mode: a.Mode}
}

// ShareURL is the counting share link of an assertion for network (one of stats.Networks): the page's share
// buttons point here, and shareRedirect counts the click and sends the browser on to the network.
func ShareURL(baseURL, assertionID, network string) string {
	return strings.TrimRight(baseURL, "/") + "/share/" + assertionID + "/" + network
}

// shareRedirect answers GET /share/{assertionId}/{network}: it counts a click on a share button of the badge page
// and answers 302 to where the button leads. The target is built here from the assertion, never read from the
// request, so the route is no open redirect; it is built by the page's own shareTarget from the page's own content
// in the link's language, so the redirect and the page never disagree. POST counts the same click and answers 204,
// for an integrator's page whose script shares by itself and reports it with navigator.sendBeacon (the badge page
// has no script).
// An unknown network, or an assertion the page would not show, is the page's 404; linkedin-add of a badge that is
// not valid is one too (the page offers add-to-profile for valid badges only). Answers are never cached, so every
// click reaches the counter.
func (h *handler) shareRedirect(w http.ResponseWriter, r *http.Request) error {
	network := chi.URLParam(r, "network")
	lang := pickLang(r)
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	target := ""
	if found && slices.Contains(stats.Networks, network) {
		view := h.buildPage(row, h.assess(r.Context(), row.Assertion), lang)
		target = shareTarget(shareNetwork(network), view.share)
	}
	w.Header().Set("Cache-Control", "no-store")
	if target == "" {
		h.renderPage(w, r, http.StatusNotFound, "notfound", notFoundView(lang))
		return nil
	}
	h.countEvent(r, row.Assertion, stats.ShareKind(network))
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(w, r, target, http.StatusFound)
	return nil
}
