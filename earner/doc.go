// Package earner is the earner's face of badged: the person a badge is about signs in by mail link (internal/signin,
// audience earner) and finds every live credential issued to their address across organizations, by the spec's
// display filter (filter.go), with downloads, privacy choices (a badge shown on the public profile, a badge page
// made private), an opt-in public profile at /earners/{handle}, and one zip of everything.
//
// Routes (Routes; api mounts them): GET /earner, POST /earner/sign-in, GET and POST /earner/sign-in/{token},
// POST /earner/sign-out, POST /earner/sign-out-everywhere, POST /earner/badges/{id}, POST /earner/badges/{id}/wallet,
// POST /earner/profile,
// GET /earner/badges/{id}/credential.json, GET /earner/export.zip, GET /earners/{handle}.
//
// Every state-changing form carries the session's CSRF token, checked before anything is written. Pages look as
// every page of badged does (internal/pagekit). It may import db and internal/ (wire/imports_test.go); api mounts
// it, as it mounts page.
package earner
