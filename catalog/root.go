package catalog

import (
	"net/http"

	"github.com/badged/badged/internal/pagekit"
)

// Root answers the service's root, the url of every test-mode issuer (issuer.Profile): a short page that says what
// this service is, to a browser and to a machine alike (200), so the link is never dead.
func (h *Handler) Root(w http.ResponseWriter, r *http.Request) error {
	lang := pagekit.PickLang(r)
	return h.write(w, http.StatusOK, "notice", pagekit.Notice{Chrome: h.chrome(lang, msg(lang, "root.title"), "", nil, ""),
		Kind: "notfound", Heading: msg(lang, "root.heading"), Detail: msg(lang, "root.detail")})
}
