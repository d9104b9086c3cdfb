// Package verifier checks an Open Badges 3.0 credential as a relying party would: it reads the credential from JSON
// or from a baked PNG/SVG, verifies its eddsa-rdfc-2022 proof whoever the issuer is, checks its validity period, its
// Bitstring Status List revocation entry and, when told where, its anchor on chain. A credential whose key comes
// from a test issuer's controller document (credential.TestIssuerTerm) is reported as a test and never as valid.
//
// Remote documents (controller documents, status lists) are fetched only over HTTPS, or plain HTTP to the loopback
// host where the development server runs, with a timeout, a size cap and no redirect to another host. Offline, only
// did:key issuers and controller documents handed in by the caller can be resolved.
//
// It imports only internal/baking, internal/chain and internal/credential, never db: it works on what a relying
// party has.
package verifier
