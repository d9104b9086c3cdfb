package page

import (
	"net/http"
	"slices"
	"strings"

	"github.com/badged/badged/internal/stats"
)

// ShareURL is the counting share link of an assertion for network (one of stats.Networks): the page's share
// buttons point here, and ShareRedirect counts the click and sends the browser on to the network.
func ShareURL(baseURL, assertionID, network string) string {
	return strings.TrimRight(baseURL, "/") + "/share/" + assertionID + "/" + network
}

// ShareRedirect answers GET /share/{assertionId}/{network}: it counts a click on a share button of the badge page
// and answers 302 to where the button leads. The target is built here from the assertion, never read from the
// request, so the route is no open redirect; it is built by the page's own shareTarget from the page's own content
// in the link's language, so the redirect and the page never disagree. POST counts the same click and answers 204,
// for an integrator's page whose script shares by itself and reports it with navigator.sendBeacon (the badge page
// has no script).
// An unknown network, or an assertion the page would not show, is the page's 404; linkedin-add of a badge that is
// not valid is one too (the page offers add-to-profile for valid badges only). Answers are never cached, so every
// click reaches the counter.
func (h *Handler) ShareRedirect(w http.ResponseWriter, r *http.Request) error {
	network := r.PathValue("network")
	lang := PickLang(r)
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	target := ""
	if found && slices.Contains(stats.Networks, network) {
		view := h.buildPage(row, h.assess(r.Context(), row.Assertion), lang)
		target = shareTarget(network, view.share)
	}
	w.Header().Set("Cache-Control", "no-store")
	if target == "" {
		return h.notFound(w, lang)
	}
	h.stats.RecordServed(r, row.Assertion, stats.ShareKind(network))
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(w, r, target, http.StatusFound)
	return nil
}
