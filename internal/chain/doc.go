// Package chain anchors credential digests on an EVM chain and verifies such anchors.
//
// An anchor is one transaction whose data field is exactly 32 bytes: the SHA-256 digest of a signed credential, or
// the Merkle root of a batch of digests (see AnchorBatch). Anchoring is idempotent per anchor key (the assertion id):
// the signed raw transaction is recorded in a TxStore before it is broadcast, and a retry with the same key re-checks
// and, if needed, re-broadcasts those same bytes, so one key never yields two transactions.
//
// Every failure is an *errcode.Error with one of the BLOCKCHAIN_* codes of the API contract.
package chain
