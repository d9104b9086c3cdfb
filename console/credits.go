package console

import (
	"net/http"
	"strconv"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/pagekit"
)

// historyRows bounds each list of the credits page and of the audit page.
const historyRows = 100

type creditRow struct {
	When, Kind, Actor string
	Amount, After     string // signed; After is empty on the rows 0037_credit_ledger reconstructed
	Issuance          string // the issuance's id when the change belongs to one
}

type creditsPage struct {
	Balance int64
	Rows    []creditRow
	Next    string
}

// creditsPage shows the organization's balance and its ledger (credit_ledger: grants, debits of issuances and
// re-drives, refunds), newest first, a page at a time by keyset (?before=id). Test issuances take nothing and so
// have no row.
func (h *Handler) creditsPage(w http.ResponseWriter, r *http.Request, a actor) error {
	before, err := beforeID(r)
	if err != nil {
		return err
	}
	o, err := h.db.GetOrganization(r.Context(), a.Org)
	if err != nil {
		return err
	}
	rows, err := h.db.ListCreditLedger(r.Context(), db.ListCreditLedgerParams{OrgID: a.Org, BeforeID: before, Limit: historyRows + 1})
	if err != nil {
		return err
	}
	t := text[pagekit.PickLang(r)]
	p := creditsPage{Balance: o.Credits}
	for i, l := range rows {
		if i == historyRows {
			p.Next = "/console/credits?before=" + strconv.FormatInt(rows[i-1].ID, 10)
			break
		}
		c := creditRow{When: h.timeOf(l.At), Kind: t["kind_"+l.Kind], Actor: t["pipeline"], Amount: strconv.FormatInt(l.Delta, 10)}
		if l.Delta > 0 {
			c.Amount = "+" + c.Amount
		}
		if l.BalanceAfter != nil {
			c.After = strconv.FormatInt(*l.BalanceAfter, 10)
		}
		if l.Actor != nil {
			c.Actor = *l.Actor
		}
		if l.IssuanceID != nil {
			c.Issuance = l.IssuanceID.String()
		}
		p.Rows = append(p.Rows, c)
	}
	return h.render(w, http.StatusOK, "credits", h.newView(r, a, "credits", p))
}

// beforeID reads the keyset of a history page: ?before=id (none: from the newest).
func beforeID(r *http.Request) (int64, error) {
	s := r.URL.Query().Get("before")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, badInput("badFilter")
	}
	return n, nil
}

type auditPage struct {
	Rows []db.AuditEvent
	When []string
	Next string
}

// auditPage (owners) shows the trail, newest first, a page at a time by keyset (?before=id).
func (h *Handler) auditPage(w http.ResponseWriter, r *http.Request, a actor) error {
	before, err := beforeID(r)
	if err != nil {
		return err
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
