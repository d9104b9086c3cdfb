package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
)

// issuancesPageSize is the rows of one page of the issuances list; the next page starts after the last (keyset),
// so a deep page costs what the first does.
const issuancesPageSize = 50

type issuanceRow struct {
	ID, Badge, Status, Created string
	Recipients, Debited        int32
}

type issuancesPage struct {
	Rows     []issuanceRow
	Badges   []db.ListBadgeChoicesRow
	Filter   issuanceFilter
	Statuses []string
	Next     string // the next page's URL; "" on the last
}

type issuanceFilter struct {
	Status, Badge, Mode, From, To string
}

// issuancesPage lists the organization's issuances of one mode (live unless ?mode=test: the two never mix, as in
// the API), newest first, filtered by status, badge and creation date (from and to are days in the console's zone,
// both included).
func (h *Handler) issuancesPage(w http.ResponseWriter, r *http.Request, a actor) error {
	q := r.URL.Query()
	f := issuanceFilter{Status: q.Get("status"), Badge: q.Get("badge"), Mode: q.Get("mode"), From: q.Get("from"), To: q.Get("to")}
	if f.Mode == "" {
		f.Mode = apikey.ModeLive
	}
	p := db.ListConsoleIssuancesParams{OrgID: a.Org, Mode: f.Mode, Lim: issuancesPageSize + 1}
	if !apikey.ValidMode(f.Mode) {
		return badInput("badFilter")
	}
	if f.Status != "" {
		switch db.IssuanceStatus(f.Status) {
		case db.IssuanceProcessing, db.IssuanceCompleted, db.IssuanceFailed:
			p.Status = &f.Status
		default:
			return badInput("badFilter")
		}
	}
	if f.Badge != "" {
		id, err := uuid.Parse(f.Badge)
		if err != nil {
			return badInput("badFilter")
		}
		p.BadgeID = &id
	}
	var err error
	if p.Since, err = h.day(f.From, 0); err != nil {
		return err
	}
	if p.Until, err = h.day(f.To, 1); err != nil {
		return err
	}
	if after := q.Get("after"); after != "" {
		at, id, ok := parseCursor(after)
		if !ok {
			return badInput("badFilter")
		}
		p.AfterAt, p.AfterID = &at, &id
	}
	rows, err := h.db.ListConsoleIssuances(r.Context(), p)
	if err != nil {
		return err
	}
	badges, err := h.db.ListBadgeChoices(r.Context(), a.Org)
	if err != nil {
		return err
	}
	page := issuancesPage{Badges: badges, Filter: f, Statuses: []string{string(db.IssuanceProcessing), string(db.IssuanceCompleted), string(db.IssuanceFailed)}}
	for i, row := range rows {
		if i == issuancesPageSize {
			next := url.Values{}
			for k, v := range q {
				next[k] = v
			}
			last := rows[i-1]
			next.Set("after", last.CreatedAt.UTC().Format(time.RFC3339Nano)+"_"+last.ID.String())
			page.Next = "/console/issuances?" + next.Encode()
			break
		}
		page.Rows = append(page.Rows, issuanceRow{ID: row.ID.String(), Badge: row.BadgeName, Status: row.ProcessingStatus,
			Created: h.timeOf(row.CreatedAt), Recipients: row.AssertionCount, Debited: row.CreditsDebited})
	}
	return h.render(w, http.StatusOK, "issuances", h.newView(r, a, "issuances", page))
}

// day reads a date filter (YYYY-MM-DD) as the start of that day plus addDays, in the console's zone; nil when empty.
func (h *Handler) day(s string, addDays int) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	d, err := time.ParseInLocation(time.DateOnly, s, h.loc)
	if err != nil {
		return nil, badInput("badFilter")
	}
	d = d.AddDate(0, 0, addDays)
	return &d, nil
}

// parseCursor reads the keyset cursor "createdAt_id" of the issuances list.
func parseCursor(s string) (time.Time, uuid.UUID, bool) {
	at, idText, ok := strings.Cut(s, "_")
	if !ok {
		return time.Time{}, uuid.Nil, false
	}
	t, err1 := time.Parse(time.RFC3339Nano, at)
	id, err2 := uuid.Parse(idText)
	return t, id, err1 == nil && err2 == nil
}

// recipientsPageSize is the recipients of one page of an issuance; the next starts after the last seq.
const recipientsPageSize = 100

type issuancePage struct {
	ID, Badge, Mode, Status, Created, Failure string
	Recipients, Debited                       int32
	States                                    []count
	Errors                                    []count
	Rows                                      []recipientRow
	State, ErrorCode                          string // the recipients' filters
	Next                                      string
	CanRedrive                                bool
}

type recipientRow struct {
	Seq                                   int32
	ID, Name, Contact, State, Step, Error string
}

// issuancePage shows one issuance of the organization: recipients by state and by error code, and one page of its
// recipients (filtered by state or error code) with the step each failed one stopped at. It reads what `badged
// admin issuance inspect` reads of the database, by index: a page of 100,000 recipients costs the few rows of its
// outcome counters (issuance_outcome_counts, kept by triggers) and one page of the (issuance_id, seq) index.
func (h *Handler) issuancePage(w http.ResponseWriter, r *http.Request, a actor) error {
	iss, err := h.orgIssuance(r, a)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	p := issuancePage{ID: iss.ID.String(), Badge: iss.BadgeName, Mode: iss.Mode, Status: iss.ProcessingStatus,
		Created: h.timeOf(iss.CreatedAt), Recipients: iss.AssertionCount, Debited: iss.CreditsDebited,
		State: q.Get("state"), ErrorCode: q.Get("errorCode"), CanRedrive: h.redrive != nil && a.can(apikey.RoleManager)}
	if iss.Failure != nil {
		p.Failure = *iss.Failure
	}
	outcomes, err := h.db.CountRecipientOutcomes(r.Context(), iss.ID)
	if err != nil {
		return err
	}
	p.States, p.Errors = tally(outcomes)
	lp := db.ListIssuanceRecipientsParams{IssuanceID: iss.ID, AfterSeq: -1, Lim: recipientsPageSize + 1} // seq starts at 0
	if p.State != "" {
		lp.State = &p.State
	}
	if p.ErrorCode != "" {
		lp.ErrorCode = &p.ErrorCode
	}
	if after := q.Get("after"); after != "" {
		n, err := strconv.ParseInt(after, 10, 32)
		if err != nil || n < 0 {
			return badInput("badFilter")
		}
		lp.AfterSeq = int32(n)
	}
	rows, err := h.db.ListIssuanceRecipients(r.Context(), lp)
	if err != nil {
		return err
	}
	for i, row := range rows {
		if i == recipientsPageSize {
			next := url.Values{}
			for k, v := range q {
				next[k] = v
			}
			next.Set("after", strconv.Itoa(int(rows[i-1].Seq)))
			p.Next = "/console/issuances/" + p.ID + "?" + next.Encode()
			break
		}
		p.Rows = append(p.Rows, recipientOf(row))
	}
	return h.render(w, http.StatusOK, "issuance", h.newView(r, a, "issuances", p))
}

// count is how many recipients have one state, or one error code.
type count struct {
	Key string
	N   int64
}

// tally sums the (state, error code) counts into counts by state and by error code, each in order.
func tally(rows []db.CountRecipientOutcomesRow) (states, errors []count) {
	byState, byError := map[string]int64{}, map[string]int64{}
	for _, o := range rows {
		byState[o.State] += o.N
		if o.ErrorCode != "" {
			byError[o.ErrorCode] += o.N
		}
	}
	return sorted(byState), sorted(byError)
}

func sorted(m map[string]int64) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{k, n})
	}
	slices.SortFunc(out, func(a, b count) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func recipientOf(row db.ListIssuanceRecipientsRow) recipientRow {
	rr := recipientRow{Seq: row.Seq, ID: row.ID.String(), Name: row.RecipientName, State: row.State}
	switch {
	case row.RecipientEmail != nil:
		rr.Contact = *row.RecipientEmail
	case row.RecipientPhone != nil:
		rr.Contact = *row.RecipientPhone
	}
	if row.ErrorCode != nil {
		rr.Error, rr.Step = *row.ErrorCode, row.Step
	}
	return rr
}

// orgIssuance reads the issuance named in the path, of the actor's organization (another's: not found).
func (h *Handler) orgIssuance(r *http.Request, a actor) (db.GetOrgIssuanceRow, error) {
	id, err := uuid.Parse(chi.URLParam(r, "issuanceId"))
	if err != nil {
		return db.GetOrgIssuanceRow{}, errNotFound
	}
	iss, err := h.db.GetOrgIssuance(r.Context(), db.GetOrgIssuanceParams{OrgID: a.Org, ID: id})
	if db.IsNotFound(err) {
		return iss, errNotFound
	}
	return iss, err
}
