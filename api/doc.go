// Package api is the HTTP edge of badged: the route table of /public/v2 and /public/v3 and of the keyless public
// routes (handler.go), authentication, the key's role and mode (auth.go, modes.go), request decoding (decode.go,
// decode_fields.go), the contract's response and error bodies (respond.go, errors.go: the one funnel every
// failure is answered through), one file per resource, the credentials' public routes (public.go) and the wallet
// protocols (oid4vci_*.go, vcapi_*.go). The badge page and what is drawn from it are package page, which the
// route table mounts. It is the only package that imports chi.
//
// It may import db, page, workflows (workflow ids and input types), activities (only the staging types of a large
// issuance), internal/ (internal/web for what it shares with page) and its libraries; never temporal: workflows
// start through IssuanceStarter and WebhookStarter, which cmd/badged builds. cmd/badged, the client generator
// (client/internal/openapidump) and tests import it.
package api
