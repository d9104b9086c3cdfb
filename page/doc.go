// Package page is the public badge page of an issued assertion (/verify/{id}, and /credentials/{id} asked for
// HTML) and what is drawn from the same facts and verdict: the social preview image, the PDF certificate and the
// counting share redirect. It checks the badge as a verifier would (assess.go; the signature and anchor checks are
// kept per credential, the status and expiry decided on every request: proofs.go), shows the facts the credential
// signs (facts.go), decides what to say first (view.go), says it in English or Korean (i18n.go) and renders the
// templates in templates/ over the common look of every page (internal/pagekit). The certificate and the preview render in bounded slots that a failing renderer
// always gives back (render.go).
//
// It may import db, the domain libraries under internal/ (internal/web for what it shares with the API) and the
// standard library; never api (api mounts its Handler) nor chi: it reads its path values with
// http.Request.PathValue, which chi sets. Its external tests (package page_test) serve it through api, as
// production does.
package page
