package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/stats"
)

// The stats routes (v3 extension; README "What happened to each badge"): GET /badges/{id}/stats and
// GET /issuances/{id}/stats answer what happened to the assertions of a badge or an issuance between two UTC days,
// in total and by day. They are sandboxed: a test key sees its test assertions' counters only, a live key its live
// ones; another mode's issuance answers ISS001 as an unknown one.

// Limits of the stats range.
const (
	statsDefaultDays = 30  // without from: the 30 days ending at to
	statsMaxDays     = 366 // from..to spans at most this many days, so an answer has at most 366 days
)

// agentCounts is one counter split by who caused it (internal/stats.IsBot).
type agentCounts struct {
	Human int64 `json:"human"`
	Bots  int64 `json:"bots"`
}

func (c *agentCounts) add(bot bool, n int64) {
	if bot {
		c.Bots += n
	} else {
		c.Human += n
	}
}

// verificationCounts are the checks of a badge: on its page (every page view runs the page's check of the
// signature, anchor, status and expiry) and through the API (the signed credential fetched as JSON).
type verificationCounts struct {
	Page agentCounts `json:"page"`
	API  agentCounts `json:"api"`
}

// statsCounts is what happened in a period: the recorder's events and what the database records itself (wallet
// claims, bounced mails: server-side facts, no User-Agent).
type statsCounts struct {
	Views         agentCounts            `json:"views"`
	Verifications verificationCounts     `json:"verifications"`
	PDFDownloads  agentCounts            `json:"pdfDownloads"`
	Shares        map[string]agentCounts `json:"shares"` // by network, every network of stats.Networks
	WalletClaims  int64                  `json:"walletClaims"`
	MailsBounced  int64                  `json:"mailsBounced"`
}

func newStatsCounts() *statsCounts {
	c := &statsCounts{Shares: make(map[string]agentCounts, len(stats.Networks))}
	for _, n := range stats.Networks {
		c.Shares[n] = agentCounts{}
	}
	return c
}

// addEvent adds n events of kind to c.
func (c *statsCounts) addEvent(kind string, bot bool, n int64) {
	switch stats.Kind(kind) {
	case stats.View:
		c.Views.add(bot, n)
		c.Verifications.Page.add(bot, n)
	case stats.VerifyAPI:
		c.Verifications.API.add(bot, n)
	case stats.PDF:
		c.PDFDownloads.add(bot, n)
	default:
		for _, network := range stats.Networks {
			if stats.ShareKind(network) == stats.Kind(kind) {
				s := c.Shares[network]
				s.add(bot, n)
				c.Shares[network] = s
			}
		}
	}
}

func (c *statsCounts) addOutcome(kind string, n int64) {
	switch kind {
	case "wallet_claim":
		c.WalletClaims += n
	case "mail_bounced":
		c.MailsBounced += n
	}
}

// statsDay is one UTC day of the breakdown.
type statsDay struct {
	Date string `json:"date"`
	*statsCounts
}

// statsResponse is data of both stats routes.
type statsResponse struct {
	BadgeID     *uuid.UUID   `json:"badgeId,omitempty"`
	IssuanceID  *uuid.UUID   `json:"issuanceId,omitempty"`
	ProgramID   *uuid.UUID   `json:"programId,omitempty"`
	AssertionID *uuid.UUID   `json:"assertionId,omitempty"`
	From        string       `json:"from"`
	To          string       `json:"to"`
	Totals      *statsCounts `json:"totals"`
	Days        []statsDay   `json:"days"` // the days with something counted, oldest first
}

// statsRange is from..to, both UTC calendar days, inclusive.
type statsRange struct{ from, to time.Time }

// parseStatsRange reads from and to (YYYY-MM-DD, UTC days, inclusive). to defaults to today, from to the 30 days
// ending at to. A malformed date is COM002 naming the field; from after to, or a range over 366 days, is COM006
// naming from.
func parseStatsRange(q url.Values, now time.Time) (statsRange, error) {
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	rg := statsRange{to: today}
	var fields []fieldError
	read := func(name string, dst *time.Time) bool {
		vs, ok := q[name]
		if !ok {
			return false
		}
		if len(vs) > 1 {
			fields = append(fields, fieldError{Field: name, Message: "must be given once, as YYYY-MM-DD (a UTC day)", format: true})
			return false
		}
		t, err := parseDate(vs[0], time.UTC)
		if err != nil {
			fields = append(fields, dateProblem(name, vs[0], err))
			return false
		}
		*dst = t
		return true
	}
	read("to", &rg.to)
	if !read("from", &rg.from) {
		rg.from = rg.to.AddDate(0, 0, -(statsDefaultDays - 1))
	}
	if len(fields) > 0 {
		return rg, fieldsError(fields)
	}
	switch {
	case rg.from.After(rg.to):
		return rg, fieldsError([]fieldError{{Field: "from", Message: "must not be later than to"}})
	case rg.to.Sub(rg.from) >= statsMaxDays*24*time.Hour:
		return rg, fieldsError([]fieldError{{Field: "from", Message: fmt.Sprintf("from..to must span at most %d days", statsMaxDays)}})
	}
	return rg, nil
}

func (rg statsRange) strings() (string, string) {
	return rg.from.Format(time.DateOnly), rg.to.Format(time.DateOnly)
}

// statsSubject is what one stats route reads: whether the subject exists for the caller's scope (its not-found
// error otherwise), which assertions are its own (the filter of the stats queries, days aside), and where the answer
// names it.
type statsSubject struct {
	param  string // the path parameter of the subject's id
	exists func(ctx context.Context, sc scope, id uuid.UUID) error
	filter func(sc scope, id *uuid.UUID) db.StatsByDayParams
	name   func(out *statsResponse, id *uuid.UUID)
}

// serveStats is every stats route: the subject's id, the caller's scope and the range read and checked once here.
func (h *handler) serveStats(w http.ResponseWriter, r *http.Request, sub statsSubject) error {
	id, err := pathID(r, sub.param)
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	rg, err := parseStatsRange(r.URL.Query(), h.now())
	if err != nil {
		return err
	}
	if err := sub.exists(r.Context(), sc, id.UUID); err != nil {
		return err
	}
	q := sub.filter(sc, &id.UUID)
	q.FromDay, q.ToDay = rg.strings()
	out, err := h.collectStats(r.Context(), rg, q)
	if err != nil {
		return err
	}
	sub.name(&out, &id.UUID)
	h.ok(w, out)
	return nil
}

// notFoundAs is a subject's lookup error, a missing row answered as the subject's not-found code.
func notFoundAs(err error, code, what string, id uuid.UUID) error {
	if db.IsNotFound(err) {
		return newError(code, "%s %s not found", what, id)
	}
	return err
}

// getBadgeStats answers GET /badges/{badgeId}/stats.
func (h *handler) getBadgeStats(w http.ResponseWriter, r *http.Request) error {
	return h.serveStats(w, r, statsSubject{
		param: "badgeId",
		exists: func(ctx context.Context, sc scope, id uuid.UUID) error {
			_, err := h.db.GetBadge(ctx, db.GetBadgeParams{OrgID: sc.Org, ID: id})
			return notFoundAs(err, codeBadgeNotFound, "badge", id)
		},
		filter: func(sc scope, id *uuid.UUID) db.StatsByDayParams {
			return db.StatsByDayParams{OrgID: &sc.Org, Mode: &sc.Mode, BadgeID: id}
		},
		name: func(out *statsResponse, id *uuid.UUID) { out.BadgeID = id },
	})
}

// getIssuanceStats answers GET /issuances/{issuanceId}/stats (another mode's issuance is an unknown one).
func (h *handler) getIssuanceStats(w http.ResponseWriter, r *http.Request) error {
	return h.serveStats(w, r, statsSubject{
		param: "issuanceId",
		exists: func(ctx context.Context, sc scope, id uuid.UUID) error {
			_, err := h.db.GetIssuance(ctx, db.GetIssuanceParams{OrgID: sc.Org, ID: id, Mode: sc.Mode})
			return notFoundAs(err, codeIssuanceNotFound, "issuance", id)
		},
		filter: func(_ scope, id *uuid.UUID) db.StatsByDayParams { return db.StatsByDayParams{IssuanceID: id} },
		name:   func(out *statsResponse, id *uuid.UUID) { out.IssuanceID = id },
	})
}

// getProgramStats answers GET /programs/{programId}/stats: the assertions of every badge issued under the program.
func (h *handler) getProgramStats(w http.ResponseWriter, r *http.Request) error {
	return h.serveStats(w, r, statsSubject{
		param: "programId",
		exists: func(ctx context.Context, sc scope, id uuid.UUID) error {
			_, err := h.db.GetProgram(ctx, db.GetProgramParams{OrgID: sc.Org, ID: id})
			return notFoundAs(err, codeProgramNotFound, "program", id)
		},
		filter: func(sc scope, id *uuid.UUID) db.StatsByDayParams {
			return db.StatsByDayParams{OrgID: &sc.Org, Mode: &sc.Mode, ProgramID: id}
		},
		name: func(out *statsResponse, id *uuid.UUID) { out.ProgramID = id },
	})
}

// getAssertionStats answers GET /assertions/{assertionId}/stats: one assertion's counters.
func (h *handler) getAssertionStats(w http.ResponseWriter, r *http.Request) error {
	return h.serveStats(w, r, statsSubject{
		param: "assertionId",
		exists: func(ctx context.Context, sc scope, id uuid.UUID) error {
			_, err := h.findAssertion(ctx, sc, id)
			return err
		},
		filter: func(_ scope, id *uuid.UUID) db.StatsByDayParams { return db.StatsByDayParams{AssertionID: id} },
		name:   func(out *statsResponse, id *uuid.UUID) { out.AssertionID = id },
	})
}

// collectStats reads the event counters and the recorded outcomes of q's assertions in range rg and folds them into
// totals and days.
func (h *handler) collectStats(ctx context.Context, rg statsRange, q db.StatsByDayParams) (statsResponse, error) {
	out := statsResponse{From: q.FromDay, To: q.ToDay, Totals: newStatsCounts(), Days: []statsDay{}}
	ev, err := h.db.StatsByDay(ctx, q)
	if err != nil {
		return out, err
	}
	oc, err := h.db.OutcomesByDay(ctx, db.OutcomesByDayParams(q))
	if err != nil {
		return out, err
	}
	days := map[string]*statsCounts{}
	day := func(d string) *statsCounts {
		if c, ok := days[d]; ok {
			return c
		}
		c := newStatsCounts()
		days[d] = c
		return c
	}
	for _, e := range ev {
		out.Totals.addEvent(e.Kind, e.Bot, e.N)
		day(e.Day).addEvent(e.Kind, e.Bot, e.N)
	}
	for _, o := range oc {
		out.Totals.addOutcome(o.Kind, o.N)
		day(o.Day).addOutcome(o.Kind, o.N)
	}
	for d := rg.from; !d.After(rg.to); d = d.AddDate(0, 0, 1) {
		if c, ok := days[d.Format(time.DateOnly)]; ok {
			out.Days = append(out.Days, statsDay{Date: d.Format(time.DateOnly), statsCounts: c})
		}
	}
	return out, nil
}
