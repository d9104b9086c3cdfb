package api

import (
	"github.com/go-chi/chi/v5"

	"github.com/badged/badged/earner"
	"github.com/badged/badged/internal/stats"
)

// mountEarner mounts the earner's pages (package earner) when d has the earner's sign-in.
func (h *handler) mountEarner(r chi.Router, d Deps) {
	if d.SignIn.Service == nil {
		return
	}
	tally := d.SignIn.Tally
	if tally == nil {
		tally = stats.NewTally(d.DB, nil, h.log)
	}
	e := earner.New(earner.Deps{DB: d.DB, Blob: d.Blob, Log: h.log, Location: h.loc, Clock: h.clock, URLs: h.urls(),
		SignIn: d.SignIn.Service, Tally: tally})
	for _, rt := range e.Routes() {
		r.Method(rt.Method, rt.Pattern, h.handle(rt.Handle))
	}
}
