package stats

import (
	"net/http"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/web"
)

// SubjectOf is the subject whose counters an event about assertion a adds to.
func SubjectOf(a db.Assertion) Subject {
	return Subject{Assertion: a.ID, Org: a.OrgID, Badge: a.BadgeID, Program: a.ProgramID, Issuance: a.IssuanceID, Mode: a.Mode}
}

// RecordServed records one event about an assertion a request was served: only GETs count, and the POST of a
// share beacon (a HEAD, or a cache's revalidation by HEAD, is no view). The recorder never touches the database
// on the request path. The client is web.ClientAddr's (the balancer's X-Forwarded-For behind the deployment's
// proxy), so two API processes behind one balancer see the same visitor.
func (r *Recorder) RecordServed(req *http.Request, a db.Assertion, kind Kind) {
	if req.Method != http.MethodGet && req.Method != http.MethodPost {
		return
	}
	r.Record(SubjectOf(a), kind, web.ClientAddr(req), req.UserAgent())
}
