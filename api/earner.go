package api

import (
	"github.com/go-chi/chi/v5"

	"github.com/badged/badged/earner"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
)

// mountEarner mounts the earner's pages (package earner) with their sign-in, when d has a sign-in mailer.
func (h *handler) mountEarner(r chi.Router, d Deps) error {
	if d.SignIn.Mailer == nil {
		return nil
	}
	svc, err := signin.New(signin.Config{DB: d.DB, Audience: signin.Earner, BaseURL: h.baseURL, Prefix: earner.Prefix,
		Mailer: d.SignIn.Mailer, Metrics: d.Metrics, Eligible: earner.Eligible(d.DB),
		PerAddress: d.SignIn.PerAddress, PerClient: d.SignIn.PerClient})
	if err != nil {
		return err
	}
	tally := d.SignIn.Tally
	if tally == nil {
		tally = stats.NewTally(d.DB, nil, h.log)
	}
	e := earner.New(earner.Deps{DB: d.DB, Blob: d.Blob, Log: h.log, Location: h.loc, Clock: h.clock, URLs: h.urls(),
		SignIn: svc, Tally: tally})
	for _, rt := range e.Routes() {
		fn := rt.Handle
		r.Method(rt.Method, rt.Pattern, h.handle(fn))
	}
	return nil
}
