// Package credential builds, signs and verifies Open Badges 3.0 credentials (W3C VC Data Model 2.0) with the
// Data Integrity cryptosuite eddsa-rdfc-2022, serving every JSON-LD context from embedded, hash-pinned files.
//
// Canonicalization is RDFC-1.0 implemented here over json-gold's JSON-LD expansion (safe mode): json-gold's own
// normalizer cannot be bounded or cancelled and escapes strings differently from RDFC-1.0, and verification
// canonicalizes untrusted input, so work, blank nodes, size and time are capped (Limits).
//
// The package also holds issuer keys (Multikey encoding, AES-256-GCM sealing with a rotating keyring, controller
// documents) and Bitstring Status Lists for revocation.
//
// It imports only internal/errcode.
package credential
