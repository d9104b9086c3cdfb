package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
)

// Store is chain.TxStore on Postgres (tables chain_txs and chain_nonces), shared by every worker.
type Store struct{ DB *db.DB }

var _ chain.TxStore = Store{}

// Load implements chain.TxStore.
func (s Store) Load(ctx context.Context, key string) (chain.Pending, bool, error) {
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
func (s Store) ReserveNonce(ctx context.Context, key, from string, floor uint64) (uint64, error) {
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

// SaveSigned implements chain.TxStore: first writer wins, and only the key's reservation of p.Nonce is signed.
func (s Store) SaveSigned(ctx context.Context, key string, p chain.Pending) (chain.Pending, error) {
	chainID := int64(p.ChainID)
	if err := s.DB.SaveChainSigned(ctx, db.SaveChainSignedParams{AnchorKey: key, TxHash: &p.TxHash, RawTx: p.RawTx,
		Digest: p.Digest[:], ChainID: &chainID, Sender: p.From, Nonce: int64(p.Nonce)}); err != nil {
		return chain.Pending{}, fmt.Errorf("save signed tx: %w", err)
	}
	row, err := s.DB.GetChainTx(ctx, key)
	if db.IsNotFound(err) || (err == nil && row.RawTx == nil) {
		return chain.Pending{}, fmt.Errorf("save signed tx %s nonce %d: %w", key, p.Nonce, chain.ErrNotReserved)
	}
	if err != nil {
		return chain.Pending{}, err
	}
	return toPending(row), nil
}

// MarkMined implements chain.TxStore. The credentials already anchored under key get the block too, in the same
// transaction: it differs from theirs only when the node lost the transaction and mined it again.
func (s Store) MarkMined(ctx context.Context, key string, block uint64) error {
	b := int64(block)
	return s.DB.InTx(ctx, func(q *db.Queries) error {
		n, err := q.MarkChainMined(ctx, db.MarkChainMinedParams{AnchorKey: key, BlockNumber: &b})
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("mark mined %s: %w", key, chain.ErrUnknownKey)
		}
		return q.MoveAnchorBlock(ctx, db.MoveAnchorBlockParams{AnchorKey: key, Block: b})
	})
}

// Unsettled implements chain.TxStore.
func (s Store) Unsettled(ctx context.Context, from string, lo, hi uint64) ([]chain.Reservation, error) {
	rows, err := s.DB.ListChainUnsettled(ctx, db.ListChainUnsettledParams{Sender: from, Lo: int64(lo), Hi: int64(hi)})
	if err != nil {
		return nil, fmt.Errorf("list unsettled nonces: %w", err)
	}
	out := make([]chain.Reservation, len(rows))
	for i, r := range rows {
		out[i] = toReservation(r.ChainTx, r.AgeMs)
	}
	return out, nil
}

// Reservations implements chain.TxStore.
func (s Store) Reservations(ctx context.Context, from string, lo, hi uint64) ([]chain.Reservation, error) {
	rows, err := s.DB.ListChainReservations(ctx, db.ListChainReservationsParams{Sender: from, Lo: int64(lo), Hi: int64(hi)})
	if err != nil {
		return nil, fmt.Errorf("list reserved nonces: %w", err)
	}
	out := make([]chain.Reservation, len(rows))
	for i, r := range rows {
		out[i] = toReservation(r.ChainTx, r.AgeMs)
	}
	return out, nil
}

// ForgetMined implements chain.TxStore.
func (s Store) ForgetMined(ctx context.Context, from string, lo, hi uint64) error {
	if _, err := s.DB.ForgetChainMined(ctx, db.ForgetChainMinedParams{Sender: from, Lo: int64(lo), Hi: int64(hi)}); err != nil {
		return fmt.Errorf("forget mined blocks: %w", err)
	}
	return nil
}

// ReplaceAbandoned implements chain.TxStore: the release and the filler's insert are one transaction, and the
// filler's row is read back afterwards, so a repair that lost the race returns the winner's filler.
func (s Store) ReplaceAbandoned(ctx context.Context, key string, filler chain.Pending) (chain.Pending, bool, error) {
	fk := chain.FillerKey(filler.From, filler.Nonce)
	err := s.DB.InTx(ctx, func(q *db.Queries) error {
		n, err := q.ReleaseChainReservation(ctx, db.ReleaseChainReservationParams{AnchorKey: key, Sender: filler.From,
			Nonce: int64(filler.Nonce)})
		if err != nil || n == 0 {
			return err
		}
		chainID := int64(filler.ChainID)
		return q.InsertChainFiller(ctx, db.InsertChainFillerParams{AnchorKey: fk, Sender: filler.From,
			Nonce: int64(filler.Nonce), TxHash: &filler.TxHash, RawTx: filler.RawTx, Digest: filler.Digest[:], ChainID: &chainID})
	})
	if err != nil {
		return chain.Pending{}, false, fmt.Errorf("replace abandoned reservation: %w", err)
	}
	row, err := s.DB.GetChainTx(ctx, fk)
	if db.IsNotFound(err) {
		return chain.Pending{}, false, nil
	}
	if err != nil {
		return chain.Pending{}, false, err
	}
	return toPending(row), true, nil
}

// toReservation is a chain_txs row listed with its age; only a signed row carries its transaction.
func toReservation(row db.ChainTx, ageMs int64) chain.Reservation {
	r := chain.Reservation{Key: row.AnchorKey, Nonce: uint64(row.Nonce), Age: time.Duration(ageMs) * time.Millisecond}
	if row.RawTx != nil {
		r.Signed, r.Tx = true, toPending(row)
	}
	return r
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
