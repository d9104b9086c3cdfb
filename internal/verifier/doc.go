// Package verifier checks an Open Badges 3.0 credential as a relying party would: it reads the credential from JSON
// or from a baked PNG/SVG, verifies its eddsa-rdfc-2022 proof whoever the issuer is, checks its validity period, its
// Bitstring Status List revocation entry and, when told where, its anchor on chain. A credential whose key comes
// from a test issuer's controller document (credential.TestIssuerTerm) is reported as a test and never as valid.
//
// Each check passes, fails (the credential is proven invalid), could not be done (what it needed could not be had:
// a document or node unreachable, a key not available offline; this proves nothing either way), or was left out
// by the options (offline, no RPC endpoint). Report.Verdict sums them up: valid, invalid, or could not check.
//
// Remote documents (controller documents, status lists) are fetched only over HTTPS, or plain HTTP to the loopback
// host where the development server runs, with a timeout, a size cap and no redirect to another host. Offline,
// nothing is fetched: only did:key issuers and controller documents handed in by the caller can be resolved.
//
// It imports only internal/baking, internal/chain, internal/credential and internal/errcode, never db: it works on
// what a relying party has.
package verifier
