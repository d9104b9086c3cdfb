package console

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/audit"
)

// historyRows bounds each list of the credits page and of the audit page.
const historyRows = 100

type creditRow struct {
	When, What, Link string
	Amount           string
}

type creditsPage struct {
	Balance int64
	Grants  []creditRow
	Debits  []creditRow
}

// creditsPage shows the organization's balance, the grants (badged admin credits grant, from the audit trail) and
// what each live issuance took. Test issuances take nothing.
func (h *Handler) creditsPage(w http.ResponseWriter, r *http.Request, a actor) error {
	o, err := h.db.GetOrganization(r.Context(), a.Org)
	if err != nil {
		return err
	}
	p := creditsPage{Balance: o.Credits}
	debits, err := h.db.ListOrgDebits(r.Context(), db.ListOrgDebitsParams{OrgID: a.Org, Limit: historyRows})
	if err != nil {
		return err
	}
	for _, d := range debits {
		p.Debits = append(p.Debits, creditRow{When: h.timeOf(d.CreatedAt), What: fmt.Sprintf("%s · %d", d.Mode, d.AssertionCount),
			Link: "/console/issuances/" + d.ID.String(), Amount: "−" + strconv.Itoa(int(d.CreditsDebited))})
	}
	events, err := h.db.ListAudit(r.Context(), db.ListAuditParams{OrgID: a.Org, Limit: 1000})
	if err != nil {
		return err
	}
	for _, e := range events {
		if e.Action == audit.CreditsGrant && len(p.Grants) < historyRows {
			p.Grants = append(p.Grants, creditRow{When: h.timeOf(e.At), What: e.Actor, Amount: "+" + e.Detail})
		}
	}
	return h.render(w, http.StatusOK, "credits", h.newView(r, a, "credits", p))
}

type auditPage struct {
	Rows []db.AuditEvent
	When []string
	Next string
}

// auditPage (owners) shows the trail, newest first, a page at a time by keyset (?before=id).
func (h *Handler) auditPage(w http.ResponseWriter, r *http.Request, a actor) error {
	var before int64
	if s := r.URL.Query().Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return badInput("badFilter")
		}
		before = n
	}
	rows, err := h.db.ListAudit(r.Context(), db.ListAuditParams{OrgID: a.Org, BeforeID: before, Limit: historyRows + 1})
	if err != nil {
		return err
	}
	p := auditPage{}
	for i, e := range rows {
		if i == historyRows {
			p.Next = "/console/audit?before=" + strconv.FormatInt(rows[i-1].ID, 10)
			break
		}
		p.Rows = append(p.Rows, e)
		p.When = append(p.When, h.timeOf(e.At))
	}
	return h.render(w, http.StatusOK, "audit", h.newView(r, a, "audit", p))
}
