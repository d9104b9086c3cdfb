// Package chain anchors credential digests on an EVM chain and verifies such anchors.
//
// An anchor is one transaction whose data field is exactly 32 bytes: the SHA-256 digest of a signed credential, or
// the Merkle root of a batch of digests (see AnchorBatch). Anchoring is idempotent per anchor key (the assertion id):
// the signed raw transaction is recorded in a TxStore before it is broadcast, and a retry with the same key re-checks
// and, if needed, re-broadcasts those same bytes, so one key never yields two transactions.
//
// A node mines a sender's transactions in nonce order, so while it waits for a receipt the Anchorer repairs the gap
// below its own nonce (repair.go): stored transactions the node does not have are sent again, and a nonce reserved
// by a key that was abandoned before signing is taken over by a zero-value filler transaction.
//
// Every failure is an *errcode.Error with one of the BLOCKCHAIN_* codes of the API contract.
//
// It imports only internal/errcode, never db: the verifier builds on it without a database. Its TxStore on
// Postgres is internal/chain/pgstore.
package chain
