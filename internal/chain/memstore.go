package chain

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// MemStore is an in-memory TxStore for tests and the dev mode. It keeps nothing across restarts, so a dev chain
// that persists its blocks must be paired with a persistent store for nonces to stay in step (the floor passed to
// ReserveNonce makes a fresh MemStore catch up with the chain anyway).
type MemStore struct {
	mu   sync.Mutex
	next map[string]uint64 // sender → next free nonce
	txs  map[string]*memTx // key → reservation and, once signed, its transaction
}

// memTx is one key's row: what chain_txs holds.
type memTx struct {
	from       string
	nonce      uint64
	reservedAt time.Time
	signed     bool
	p          Pending
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{next: map[string]uint64{}, txs: map[string]*memTx{}}
}

var _ TxStore = (*MemStore)(nil)

// Load implements TxStore.
func (m *MemStore) Load(_ context.Context, key string) (Pending, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.txs[key]
	if !ok || !t.signed {
		return Pending{}, false, nil
	}
	return clonePending(t.p), true, nil
}

// ReserveNonce implements TxStore.
func (m *MemStore) ReserveNonce(_ context.Context, key, from string, floor uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.txs[key]; ok {
		return t.nonce, nil
	}
	n := max(m.next[from], floor)
	m.next[from] = n + 1
	m.txs[key] = &memTx{from: from, nonce: n, reservedAt: time.Now()}
	return n, nil
}

// SaveSigned implements TxStore.
func (m *MemStore) SaveSigned(_ context.Context, key string, p Pending) (Pending, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.txs[key]
	if ok && t.signed {
		return clonePending(t.p), nil
	}
	if !ok || t.from != p.From || t.nonce != p.Nonce {
		return Pending{}, fmt.Errorf("save signed %q nonce %d: %w", key, p.Nonce, ErrNotReserved)
	}
	t.signed, t.p = true, clonePending(p)
	return clonePending(p), nil
}

// MarkMined implements TxStore.
func (m *MemStore) MarkMined(_ context.Context, key string, blockNumber uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.txs[key]
	if !ok || !t.signed {
		return fmt.Errorf("mark mined %q: %w", key, ErrUnknownKey)
	}
	t.p.BlockNumber = blockNumber
	return nil
}

// Unsettled implements TxStore.
func (m *MemStore) Unsettled(_ context.Context, from string, lo, hi uint64) ([]Reservation, error) {
	return m.list(from, lo, hi, false), nil
}

// Reservations implements TxStore.
func (m *MemStore) Reservations(_ context.Context, from string, lo, hi uint64) ([]Reservation, error) {
	return m.list(from, lo, hi, true), nil
}

// ForgetMined implements TxStore.
func (m *MemStore) ForgetMined(_ context.Context, from string, lo, hi uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.txs {
		if t.from == from && t.nonce >= lo && t.nonce < hi {
			t.p.BlockNumber = 0
		}
	}
	return nil
}

func (m *MemStore) list(from string, lo, hi uint64, mined bool) []Reservation {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Reservation
	// A scan of every key: MemStore serves tests and dev runs, where the map stays small.
	for key, t := range m.txs {
		if t.from != from || t.nonce < lo || t.nonce >= hi || (!mined && t.p.BlockNumber > 0) {
			continue
		}
		r := Reservation{Key: key, Nonce: t.nonce, Age: time.Since(t.reservedAt), Signed: t.signed}
		if t.signed {
			r.Tx = clonePending(t.p)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Nonce < out[j].Nonce })
	return out
}

// ReplaceAbandoned implements TxStore.
func (m *MemStore) ReplaceAbandoned(_ context.Context, key string, filler Pending) (Pending, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fk := FillerKey(filler.From, filler.Nonce)
	if t, ok := m.txs[key]; ok && !t.signed && t.from == filler.From && t.nonce == filler.Nonce {
		delete(m.txs, key)
		m.txs[fk] = &memTx{from: filler.From, nonce: filler.Nonce, reservedAt: time.Now(), signed: true, p: clonePending(filler)}
	}
	if t, ok := m.txs[fk]; ok {
		return clonePending(t.p), true, nil
	}
	return Pending{}, false, nil
}

// clonePending copies RawTx so callers cannot mutate what the store holds.
func clonePending(p Pending) Pending {
	p.RawTx = append([]byte(nil), p.RawTx...)
	return p
}
