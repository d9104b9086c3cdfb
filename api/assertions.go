package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/web"
)

// lapsedCountCap is the LIMIT of CountLapsedAssertions.
const lapsedCountCap = 10_000

type namedRef struct {
	ID    string        `json:"id"`
	Name  string        `json:"name"`
	Image imageResponse `json:"image"`
}

type recipientResponse struct {
	Name        string  `json:"name"`
	Email       *string `json:"email"`
	PhoneNumber *string `json:"phoneNumber"`
	SourcedID   any     `json:"sourcedId,omitempty"` // v3 only: a *string, null when absent; v2 leaves it out
	ReceiveType string  `json:"receiveType"`
}

type assertionResponse struct {
	ID           string            `json:"id"`
	SerialNumber string            `json:"serialNumber"`
	Badge        namedRef          `json:"badge"`
	Program      namedRef          `json:"program"`
	IssuanceID   string            `json:"issuanceId"`
	Recipient    recipientResponse `json:"recipient"`
	StateCode    string            `json:"stateCode"`
	ErrorCode    *string           `json:"errorCode"`
	ExpiredAt    *string           `json:"expiredAt"`
	IssuedAt     any               `json:"issuedAt,omitempty"` // v3 only
	CreatedAt    string            `json:"createdAt"`
	Evidence     any               `json:"evidence,omitempty"` // v3 only: the recipient's evidence, [] for none
}

type assertionDetail struct {
	assertionResponse
	CredentialURL     *string       `json:"credentialUrl"`
	OpenbadgeImageURL *string       `json:"openbadgeImageUrl"`
	WalletCopies      *[]walletCopy `json:"walletCopies,omitempty"` // v3 only (offers.go)
}

// effectiveState is the state a reader sees (web.EffectiveState, which the wallet protocols read too).
var effectiveState = web.EffectiveState

// assertionRow is the part of the joined assertion rows the response needs; the list and detail queries both
// produce it.
type assertionRow struct {
	db.Assertion
	BadgeName, ProgramName       string
	BadgeImageID, ProgramImageID uuid.UUID
}

func toAssertionRow(a db.ListAssertionsRow) assertionRow {
	return assertionRow{Assertion: a.Assertion, BadgeName: a.BadgeName, ProgramName: a.ProgramName,
		BadgeImageID: a.BadgeImageID, ProgramImageID: a.ProgramImageID}
}

func (h *handler) toAssertionResponse(v version, a assertionRow, now time.Time) assertionResponse {
	out := assertionResponse{
		ID: a.ID.String(), SerialNumber: a.SerialNumber,
		Badge:      namedRef{ID: a.BadgeID.String(), Name: a.BadgeName, Image: h.image(a.BadgeImageID)},
		Program:    namedRef{ID: a.ProgramID.String(), Name: a.ProgramName, Image: h.image(a.ProgramImageID)},
		IssuanceID: a.IssuanceID.String(),
		Recipient: recipientResponse{Name: a.RecipientName, Email: a.RecipientEmail, PhoneNumber: a.RecipientPhone,
			ReceiveType: a.ReceiveType},
		StateCode: string(effectiveState(a.State, a.ExpiredAt, now)), ErrorCode: a.ErrorCode,
		ExpiredAt: v.formatTimePtr(a.ExpiredAt, h.loc), CreatedAt: v.formatTime(a.CreatedAt, h.loc),
	}
	if v == v3 {
		// A typed nil in the interface is not omitted: v3 always carries the fields, null when absent.
		out.IssuedAt = v.formatTime(a.IssuedAt, h.loc)
		out.Recipient.SourcedID = a.RecipientSourcedID
		ev, err := storedEvidence(a.Evidence)
		if err != nil {
			h.log.Error("assertion evidence unreadable", "assertion", a.ID, "err", err)
		}
		out.Evidence = ev
	}
	return out
}

// assertionFilter is a parsed GET /assertions query.
type assertionFilter struct {
	badgeID, programID, issuanceID *uuid.UUID
	state, email, phone, sourcedID *string
	hidden                         *string // a state left out of the list (version.listHiddenState)
	startAt, endAt                 *time.Time
}

func parseAssertionFilter(q url.Values, v version, loc *time.Location) (assertionFilter, error) {
	var f assertionFilter
	var err error
	for _, p := range []struct {
		name string
		dst  **uuid.UUID
	}{{"badgeId", &f.badgeID}, {"programId", &f.programID}, {"issuanceId", &f.issuanceID}} {
		if *p.dst, err = queryUUID(q, p.name); err != nil {
			return f, err
		}
	}
	if f.state, err = queryEnum(q, "stateCode", db.AssertionStates...); err != nil {
		return f, err
	}
	if f.state == nil {
		f.hidden = v.listHiddenState()
	}
	recipientFilters := []string{"email", "phoneNumber"}
	if v == v3 {
		recipientFilters = append(recipientFilters, "sourcedId")
	}
	var used []string
	for _, name := range recipientFilters {
		if s := strings.TrimSpace(q.Get(name)); s != "" {
			used = append(used, name)
			switch name {
			case "email":
				s = strings.ToLower(s)
				f.email = &s
			case "phoneNumber":
				if norm, ok := normalizePhone(s); ok {
					s = norm
				}
				f.phone = &s
			case "sourcedId":
				f.sourcedID = &s
			}
		}
	}
	if len(used) > 1 {
		return f, newError(v.recipientFilterConflict(), "use only one of %s per request, got %s",
			strings.Join(recipientFilters, ", "), strings.Join(used, " and "))
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"startAt", &f.startAt}, {"endAt", &f.endAt}} {
		s := strings.TrimSpace(q.Get(p.name))
		if s == "" {
			continue
		}
		t, zoned, err := v.parseTime(s, loc)
		if fe, bad := v.timeProblem(p.name, zoned, err); bad {
			return f, fieldsError([]fieldError{fe})
		}
		*p.dst = &t
	}
	if f.startAt != nil && f.endAt != nil && f.startAt.After(*f.endAt) {
		return f, newError(codeTimeRange, "startAt must not be later than endAt")
	}
	return f, nil
}

func (h *handler) listAssertions(w http.ResponseWriter, r *http.Request) error {
	q, v := r.URL.Query(), versionOf(r.Context())
	page, err := parsePage(q)
	if err != nil {
		return err
	}
	order, err := parseSort(q, "createdAt", "id")
	if err != nil {
		return err
	}
	f, err := parseAssertionFilter(q, v, h.loc)
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	if !sc.live() {
		// The contract: only production assertions are listed, test ones never, and a test key reads no live
		// data. Its assertions are read one by one (by the ids its mail and webhook events carry).
		okList(h, w, page, 0, []assertionResponse{})
		return nil
	}
	org, now := sc.Org, h.now()
	total, err := h.countAssertions(r, org, f, now)
	if err != nil {
		return err
	}
	created, _ := order.find("createdAt")
	rows, err := h.db.ListAssertions(r.Context(), db.ListAssertionsParams{OrgID: org, BadgeID: f.badgeID,
		ProgramID: f.programID, IssuanceID: f.issuanceID, State: f.state, Email: f.email, Phone: f.phone,
		SourcedID: f.sourcedID, HiddenState: f.hidden, StartAt: f.startAt, EndAt: f.endAt, Now: now,
		IDFirst: order[0].field == "id", CreatedDesc: created.desc, IDDesc: order.idDesc(),
		Lim: int32(page.size), Off: page.offset()})
	if err != nil {
		return err
	}
	items := make([]assertionResponse, len(rows))
	for i, a := range rows {
		items[i] = h.toAssertionResponse(v, toAssertionRow(a), now)
	}
	okList(h, w, page, total, items)
	return nil
}

// countAssertions answers totalElement without counting a million rows. Lists filtered by nothing but badge,
// program and state read the trigger-kept counters (a few rows). The states that depend on expiry are corrected by
// the ISSUED/RECEIVED rows past expiredAt that the expiry job has not rewritten yet (few, as it runs every 10
// minutes): RECEIVED = counter − lapsed RECEIVED; EXPIRED = counter + lapsed ISSUED and RECEIVED. Narrower filters
// (issuance, recipient, time range) count their index range exactly.
func (h *handler) countAssertions(r *http.Request, org uuid.UUID, f assertionFilter, now time.Time) (int64, error) {
	ctx := r.Context()
	exactOf := func(f assertionFilter) func() (int64, error) {
		return func() (int64, error) {
			return h.db.CountAssertions(ctx, db.CountAssertionsParams{OrgID: org, BadgeID: f.badgeID,
				ProgramID: f.programID, IssuanceID: f.issuanceID, State: f.state, Email: f.email, Phone: f.phone,
				SourcedID: f.sourcedID, HiddenState: f.hidden, StartAt: f.startAt, EndAt: f.endAt, Now: now})
		}
	}
	exact := exactOf(f)
	if f.issuanceID != nil || f.email != nil || f.phone != nil || f.sourcedID != nil {
		return exact()
	}
	if f.startAt != nil || f.endAt != nil {
		if f.badgeID != nil || f.programID != nil || f.state != nil {
			return exact()
		}
		if f.hidden == nil {
			return h.countCreatedBetween(ctx, org, f.startAt, f.endAt, exact)
		}
		// The hour counters count every state: count all, then take the hidden state's rows of the range off
		// (few, and an index range of assertions_state_idx).
		all, hidden := f, f
		all.hidden, hidden.state, hidden.hidden = nil, f.hidden, nil
		n, err := h.countCreatedBetween(ctx, org, f.startAt, f.endAt, exactOf(all))
		if err != nil {
			return 0, err
		}
		m, err := exactOf(hidden)()
		return n - m, err
	}
	n, err := h.db.SumAssertionCounts(ctx, db.SumAssertionCountsParams{OrgID: org, BadgeID: f.badgeID,
		ProgramID: f.programID, State: f.state, HiddenState: f.hidden})
	if err != nil || f.state == nil {
		return n, err
	}
	lapsed := db.CountLapsedAssertionsParams{OrgID: org, Now: now, BadgeID: f.badgeID, ProgramID: f.programID}
	sign := int64(1)
	switch db.AssertionState(*f.state) {
	case db.AssertionIssued, db.AssertionReceived:
		lapsed.State, sign = f.state, -1
	case db.AssertionExpired:
	default:
		return n, nil
	}
	m, err := h.db.CountLapsedAssertions(ctx, lapsed)
	if err != nil {
		return 0, err
	}
	if m >= lapsedCountCap { // the expiry job is far behind: the correction would be a big count anyway
		return exact()
	}
	return n + sign*m, nil
}

// countCreatedBetween counts the live assertions created in [startAt, endAt] (nil: open) from the hour counters,
// counting only the partial hours at the edges row by row. A range that holds no whole hour is counted exactly.
func (h *handler) countCreatedBetween(ctx context.Context, org uuid.UUID, startAt, endAt *time.Time,
	exact func() (int64, error)) (int64, error) {
	p := db.CountAssertionsByHoursParams{OrgID: org, StartAt: startAt}
	if startAt != nil {
		from := startAt.Truncate(time.Hour) // Truncate counts from the zero time: whole UTC hours
		if from.Before(*startAt) {
			from = from.Add(time.Hour)
		}
		p.WholeFrom = &from
	}
	if endAt != nil {
		// endAt is inclusive and timestamptz counts microseconds: the range ends before endAt + 1 µs.
		before := endAt.Truncate(time.Microsecond).Add(time.Microsecond)
		to := before.Truncate(time.Hour)
		p.EndBefore, p.WholeTo = &before, &to
	}
	if p.WholeFrom != nil && p.WholeTo != nil && !p.WholeFrom.Before(*p.WholeTo) {
		return exact()
	}
	return h.db.CountAssertionsByHours(ctx, p)
}

func (h *handler) getAssertion(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "assertionId")
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	return h.getAssertionAs(w, r, versionOf(r.Context()), sc, id.UUID)
}

// findAssertion reads an assertion of the scope: one of another organization or mode is AST001, as an unknown id.
func (h *handler) findAssertion(ctx context.Context, sc scope, id uuid.UUID) (db.GetAssertionRow, error) {
	a, err := h.db.GetAssertion(ctx, db.GetAssertionParams{OrgID: sc.Org, ID: id, Mode: sc.Mode})
	if db.IsNotFound(err) {
		err = newError(codeAssertionMissing, "assertion %s not found", id)
	}
	return a, err
}

// getAssertionAs answers the assertion detail (also the answer of a cancel).
func (h *handler) getAssertionAs(w http.ResponseWriter, r *http.Request, v version, sc scope, id uuid.UUID) error {
	now := h.now()
	a, err := h.findAssertion(r.Context(), sc, id)
	if err != nil {
		return err
	}
	row := toAssertionRow(db.ListAssertionsRow(a)) // the list and detail queries select the same columns
	out := assertionDetail{assertionResponse: h.toAssertionResponse(v, row, now)}
	out.CredentialURL, out.OpenbadgeImageURL = h.assertionLinks(v, row)
	if v == v3 {
		copies, err := h.walletCopies(r.Context(), id)
		if err != nil {
			return err
		}
		out.WalletCopies = &copies
	}
	h.ok(w, out)
	return nil
}

// assertionLinks are the verification and image URLs. v3 gives null until the artifact exists; v2 always gives
// its public verification page and falls back to the badge image.
func (h *handler) assertionLinks(v version, a assertionRow) (credential, image *string) {
	if a.CredentialKey != nil || v == v2 {
		s := h.baseURL + v.credentialPath(a.ID)
		credential = &s
	}
	if a.BakedKey != nil {
		s := h.baseURL + "/credentials/" + a.ID.String() + "/image"
		image = &s
	} else if v == v2 {
		s := h.image(a.BadgeImageID).URLs.Original
		image = &s
	}
	return credential, image
}

// getAssertionPDF answers the certificate PDF of an issued assertion (?lang=en|ko, as the recipient's link). It is
// rendered on the first download of each state and language and kept (PutIfAbsent), so issuances do not pay for
// certificates nobody downloads: rendering is the most expensive part of a recipient's artifacts (~50 ms of CPU,
// mostly embedding the Hangul font).
func (h *handler) getAssertionPDF(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "assertionId")
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	a, err := h.findAssertion(r.Context(), sc, id.UUID)
	if err == nil && !web.Issued(a.Assertion) {
		err = newError(codeAssertionMissing, "assertion %s has no certificate: it is %s", id, a.Assertion.State)
	}
	if err != nil {
		return err
	}
	return h.page.ServeCertificate(w, r, id.UUID)
}
