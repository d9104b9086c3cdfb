package devchain

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// ReplayStats tells what Start rebuilt from the journal.
type ReplayStats struct {
	Blocks  int // blocks sealed again
	Pooled  int // transactions put back in the pool that no replayed block holds
	Differs int // replayed blocks whose number or transactions differ from the journal's (0 unless the journal was edited)
}

// Replayed returns what Start rebuilt from the journal.
func (c *Chain) Replayed() ReplayStats { return c.replayed }

// openJournal replays the journal in dir into the (empty, in-memory) chain and keeps it open for appending. Records
// are replayed in the order they were written: transactions into the pool, and at each block record a seal. The pool
// then holds what it held when that block was first sealed (the gate keeps pool additions and seals apart), so the
// miner picks the same transactions; the block's own transactions are added too in case one of them did not make
// it into a transaction record.
func (c *Chain) openJournal(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create dev chain dir: %w", err)
	}
	j, recs, err := openJournal(filepath.Join(dir, journalFile))
	if err != nil {
		return err
	}
	pool := c.eth.TxPool()
	add := func(raw []byte) *types.Transaction {
		tx := new(types.Transaction)
		if tx.UnmarshalBinary(raw) != nil {
			return nil
		}
		// Errors are expected: a transaction journaled before the block that mined it is "already known" there.
		// sync: wait until the pool has promoted it, or the seal that follows may not see it yet.
		_ = pool.Add([]*types.Transaction{tx}, true)
		return tx
	}
	var st ReplayStats
	for _, r := range recs {
		switch r.kind {
		case recTx:
			add(r.payload)
		case recBlock:
			number, txs, err := decodeBlock(r.payload)
			if err != nil {
				j.close()
				return fmt.Errorf("dev chain journal: %w", err)
			}
			want := make(map[common.Hash]bool, len(txs))
			for _, raw := range txs {
				if tx := add(raw); tx != nil {
					want[tx.Hash()] = true
				}
			}
			c.beacon.Commit()
			st.Blocks++
			if !sameBlock(c.eth.BlockChain().CurrentBlock().Number.Uint64(), number, c.headTxs(), want) {
				st.Differs++
			}
		}
	}
	_ = pool.Sync()
	st.Pooled, _ = pool.Stats()
	c.journal, c.replayed = j, st
	return nil
}

func (c *Chain) headTxs() types.Transactions {
	head := c.eth.BlockChain().CurrentBlock()
	return c.eth.BlockChain().GetBlock(head.Hash(), head.Number.Uint64()).Transactions()
}

func sameBlock(got, want uint64, txs types.Transactions, hashes map[common.Hash]bool) bool {
	if got != want || len(txs) != len(hashes) {
		return false
	}
	for _, tx := range txs {
		if !hashes[tx.Hash()] {
			return false
		}
	}
	return true
}

// logBlock journals the block with hash; the caller holds the gate exclusively.
func (c *Chain) logBlock(hash common.Hash) error {
	b := c.eth.BlockChain().GetBlockByHash(hash)
	if b == nil {
		return fmt.Errorf("sealed block %s not found", hash.Hex())
	}
	txs := make([][]byte, 0, len(b.Transactions()))
	for _, tx := range b.Transactions() {
		raw, err := tx.MarshalBinary()
		if err != nil {
			return fmt.Errorf("encode block tx: %w", err)
		}
		txs = append(txs, raw)
	}
	return c.journal.append(recBlock, encodeBlock(b.NumberU64(), txs))
}
