// Package issuancelog keeps each organization's issuance log: an append-only Merkle log (RFC 6962 hashing, by
// golang.org/x/mod/sumdb/tlog) of every credential the organization's live key signed, with a checkpoint signed
// per appended batch (a C2SP signed note, golang.org/x/mod/sumdb/note) by the same Ed25519 key its controller
// document lists. It is served in the C2SP tlog-tiles layout (tile.go) and proven in each credential's receipt
// (proof.go); verify.go is the client side the CLI's monitor and credential check use.
//
// The log lives in Postgres (db/migrations/0031_issuance_log.sql). Append runs inside the caller's transaction
// under the organization's log row lock, so concurrent issuances of one organization make one linear log, and a
// crash before commit leaves no entry, hash or checkpoint of the batch behind (no gap, no fork).
//
// It imports db and nothing else of the module.
package issuancelog
