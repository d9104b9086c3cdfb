// Package pgstore is chain.TxStore on Postgres (tables chain_txs and chain_nonces): the store every worker of a
// deployment shares, so that one anchor key yields one transaction and nonces are allocated without collisions or
// gaps whichever worker sends. Its contract is chain.TxStore's; chain.MemStore is the in-memory one.
//
// It is a subpackage, not part of internal/chain, because it needs the database: internal/chain imports only
// go-ethereum and internal/errcode, and internal/verifier (which checks anchors without any database) builds on
// it. pgstore may import internal/chain and db, nothing else of this module; cmd/badged and the tests pass it to
// chain.New.
package pgstore
