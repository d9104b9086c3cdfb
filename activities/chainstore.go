package activities

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
)

// ChainStore is chain.TxStore on Postgres (tables chain_txs and chain_nonces), shared by every worker.
type ChainStore struct{ DB *db.DB }

var _ chain.TxStore = ChainStore{}

// Load implements chain.TxStore.
func (s ChainStore) Load(ctx context.Context, key string) (chain.Pending, bool, error) {
	row, err := s.DB.GetChainTx(ctx, key)
	if db.IsNotFound(err) || (err == nil && row.RawTx == nil) {
		return chain.Pending{}, false, nil
	}
	if err != nil {
		return chain.Pending{}, false, err
	}
	return toPending(row), true, nil
}

// ReserveNonce implements chain.TxStore: one transaction locks the sender's counter and records key → nonce; a
// unique violation on the key means a racing worker reserved first, and its nonce is returned.
func (s ChainStore) ReserveNonce(ctx context.Context, key, from string, floor uint64) (uint64, error) {
	if row, err := s.DB.GetChainTx(ctx, key); err == nil {
		return uint64(row.Nonce), nil
	} else if !db.IsNotFound(err) {
		return 0, err
	}
	var nonce int64
	err := s.DB.InTx(ctx, func(q *db.Queries) error {
		n, err := q.ReserveChainNonce(ctx, db.ReserveChainNonceParams{Sender: from, Floor: int64(floor)})
		if err != nil {
			return err
		}
		nonce = int64(n)
		return q.InsertChainReservation(ctx, db.InsertChainReservationParams{AnchorKey: key, Sender: from, Nonce: nonce})
	})
	if db.IsUniqueViolation(err) {
		row, err := s.DB.GetChainTx(ctx, key)
		if err != nil {
			return 0, err
		}
		return uint64(row.Nonce), nil
	}
	if err != nil {
		return 0, fmt.Errorf("reserve nonce: %w", err)
	}
	return uint64(nonce), nil
}

// SaveSigned implements chain.TxStore: first writer wins.
func (s ChainStore) SaveSigned(ctx context.Context, key string, p chain.Pending) (chain.Pending, error) {
	chainID := int64(p.ChainID)
	if err := s.DB.SaveChainSigned(ctx, db.SaveChainSignedParams{AnchorKey: key, TxHash: &p.TxHash, RawTx: p.RawTx,
		Digest: p.Digest[:], ChainID: &chainID}); err != nil {
		return chain.Pending{}, fmt.Errorf("save signed tx: %w", err)
	}
	row, err := s.DB.GetChainTx(ctx, key)
	if err != nil {
		return chain.Pending{}, err
	}
	if row.RawTx == nil {
		return chain.Pending{}, fmt.Errorf("save signed tx: no reservation for key %s", key)
	}
	return toPending(row), nil
}

// MarkMined implements chain.TxStore.
func (s ChainStore) MarkMined(ctx context.Context, key string, block uint64) error {
	b := int64(block)
	n, err := s.DB.MarkChainMined(ctx, db.MarkChainMinedParams{AnchorKey: key, BlockNumber: &b})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("mark mined %s: %w", key, chain.ErrUnknownKey)
	}
	return nil
}

func toPending(row db.ChainTx) chain.Pending {
	p := chain.Pending{From: row.Sender, Nonce: uint64(row.Nonce), RawTx: row.RawTx}
	if row.TxHash != nil {
		p.TxHash = *row.TxHash
	}
	copy(p.Digest[:], row.Digest)
	if row.ChainID != nil {
		p.ChainID = uint64(*row.ChainID)
	}
	if row.BlockNumber != nil {
		p.BlockNumber = uint64(*row.BlockNumber)
	}
	return p
}
