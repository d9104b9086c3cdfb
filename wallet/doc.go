// Package wallet is the wallet side of badged's HTTP edge: the protocols a holder's wallet speaks to take a copy of
// a credential, with their own bodies and errors. OpenID4VCI 1.0, pre-authorized code flow: the credential issuer
// and authorization server metadata and the issuer's keys (meta.go), the offer URI and its landing page (offer.go,
// offerpage.go), the token and nonce endpoints (token.go), the credential and notification endpoints
// (credential.go); and the VC-API exchange of the same offers for the DCC Learner Credential Wallet (exchange.go).
// Their refusals are answered in one place (answer.go): OAuth's error body (RFC 6749 §5.2, OID4VCI 1.0 §8.3.1.2)
// and problem details (RFC 9457) for the exchange. What bounds guessing and flooding (wrong tx_codes per offer,
// codes per offer, nonces per client) is guard.go's, every count in Postgres.
//
// Wallets served: OpenID4VCI 1.0 (final, September 2025) and Implementer's Draft 2 (draft 15, February 2025), whose
// requests name a credential_configuration_id; for the latter the credential endpoint still takes the singular
// proof (credential.go) and each configuration's display also stands at its top level (meta.go). Drafts up to 14
// are not served: they request by format, and they took the c_nonce from the token response, which badged no
// longer sends (token.go). Pre-authorized code flow only; proofs of type jwt (Ed25519, EdDSA, ES256).
//
// Package api mounts Routes in its router (its middleware, CORS table and route metrics apply) and keeps what
// belongs to the keyed API: the v3 operations that create and withdraw offers call CreateOffer and Offerable here.
// It may import db, page (the landing page's language and CSP), the domain libraries under internal/
// (internal/oid4vci for the protocol's parts without HTTP or database, internal/web for what it shares with api)
// and the standard library; never api, nor chi: it reads its path values with http.Request.PathValue, which chi
// sets. api and the tests import it.
package wallet
