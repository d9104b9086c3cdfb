// Package signin is the mail-link sign-in of badged's people-facing pages: the earner's collection (/earner) and
// the organization's console (/console). One mechanism, two audiences kept apart: a link, a session and a cookie
// of one audience never open the other.
//
// # The API
//
//	mailer := signin.NewMailer(sender, log, m)     // one per process: the bounded queue of outgoing mails
//	go mailer.Run(ctx)                              // sends them (and sweeps ended rows); returns when ctx ends
//	svc, err := signin.New(signin.Config{DB: d, Audience: signin.Earner, BaseURL: base, Prefix: "/earner",
//		Mailer: mailer, Metrics: m, Eligible: hasCredentials})
//
//	svc.Request(ctx, r, address, lang)   // POST {prefix}/sign-in: same answer (nil) for every well-formed address
//	svc.Invite(ctx, address, text)       // a link with the caller's mail text (an invitation): ErrLimited when over
//	svc.Redeem(ctx, w, r, token)         // GET {prefix}/sign-in/{token}: new session + cookie, or ErrLinkInvalid
//	svc.Current(r)                       // the request's Session, false without one (idle or ended)
//	svc.CheckCSRF(r, sess)               // every state-changing form: its "csrf" field, compared in constant time
//	svc.SignOut(w, r) / svc.SignOutEverywhere(ctx, w, r)
//
// The package renders no page: each face draws its own form and answers (the look is internal/pagekit's) and calls
// these functions; Normalize tells a malformed address (a 4xx on the form) from a well-formed one.
//
// # What is stored
//
// Postgres holds everything that must hold across API processes (db/migrations/0032_signin.sql): links by the
// SHA-256 of their token (256 random bits, 15 minutes, single use by one UPDATE ... RETURNING), sessions by the
// SHA-256 of their id (a new id at every sign-in; idle expiry and an absolute end) with their CSRF token, and the
// fixed-window counters of the per-address and per-client limits keyed by SHA-256. The raw token exists only in
// memory until the mail is sent, and in the mail.
//
// # How mail is sent
//
// Request answers before anything is mailed, and does the same work for every well-formed address (two counter
// upserts and a non-blocking enqueue), so neither the answer nor its timing tells whether the address has
// anything. The Mailer's goroutines then ask Config.Eligible (does the address hold a credential, is it a member),
// create the link row and send the letter through notify.LetterSender: SMTP when SMTP_HOST is set, else the outbox
// directory of `make run` (cmd/badged builds it as for the worker's notifications). The queue is bounded; a full
// queue drops the request (a metric counts it) and the person asks again. A process that stops drops what it had
// queued, for the same reason. Nothing runs on the worker: the API process that took the request sends the mail.
package signin
