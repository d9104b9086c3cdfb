package earner

import (
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/pagekit"
)

// walletOffer makes, on the earner's request, the wallet offer of one of their valid credentials and sends them to
// its landing page: the OpenID4VCI QR code and link and the Learner Credential Wallet link, the page the issue
// mail links. An unused offer with a day left is reused, so pressing again adds no row.
func (h *Handler) walletOffer(w http.ResponseWriter, r *http.Request) error {
	sess, ok := h.session(w, r)
	if !ok {
		return nil
	}
	row, found, err := h.owned(r.Context(), sess, r.PathValue("assertionId"))
	if err != nil {
		return err
	}
	if !found || row.CredentialKey == nil || SectionOf(row.ApiVersion, row.State, row.ExpiredAt, h.d.Clock()) != Active ||
		row.State == string(db.AssertionReissued) {
		return h.notice(w, r, http.StatusNotFound, "notfound", "err_notfound", "", Prefix, "home")
	}
	id, err := h.d.DB.EarnerWalletOffer(r.Context(), db.EarnerWalletOfferParams{AssertionID: row.ID, NewID: uuid.New(),
		OrgID: row.OrgID, TtlSeconds: int32(oid4vci.OfferTTL / time.Second)})
	if err != nil {
		return err
	}
	http.Redirect(w, r, oid4vci.OfferPageURL(h.d.URLs.BaseURL, id, pagekit.PickLang(r)), http.StatusSeeOther)
	return nil
}
