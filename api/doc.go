// Package api is the HTTP edge of badged: the route table of /public/v2 and /public/v3 and of the keyless public
// routes (handler.go), authentication, the key's role and mode (auth.go, modes.go), request decoding (decode.go,
// decode_fields.go), the contract's response and error bodies (respond.go, errors.go: the one funnel every
// failure is answered through), one file per resource (the wallet offers of v3 among them: offers.go), the
// credentials' public routes (public.go), and which paths browsers may read (cors.go). Two packages answer routes
// it mounts: page (the badge page and what is drawn from it) and wallet (the wallet protocols, OpenID4VCI and the
// VC-API exchange, with their own bodies and errors). It is the only package that imports chi.
//
// It may import db, page, wallet, workflows (workflow ids and input types), activities (only the staging types of a
// large issuance), internal/ (internal/web for what it shares with page and wallet) and its libraries; never
// temporal: workflows start through IssuanceStarter and WebhookStarter, which the composition root builds. The
// composition root (wire, cmd/badged), the client generator (client/internal/openapidump), api/apitest and tests
// import it.
package api
