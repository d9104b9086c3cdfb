package chain

import (
	"context"
	"fmt"
	"sync"
)

// MemStore is an in-memory TxStore for tests and the dev mode. It keeps nothing across restarts, so a dev chain
// that persists its blocks must be paired with a persistent store for nonces to stay in step (the floor passed to
// ReserveNonce makes a fresh MemStore catch up with the chain anyway).
type MemStore struct {
	mu       sync.Mutex
	next     map[string]uint64 // sender → next free nonce
	reserved map[string]uint64 // key → reserved nonce
	signed   map[string]Pending
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{next: map[string]uint64{}, reserved: map[string]uint64{}, signed: map[string]Pending{}}
}

var _ TxStore = (*MemStore)(nil)

// Load implements TxStore.
func (m *MemStore) Load(_ context.Context, key string) (Pending, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.signed[key]
	return clonePending(p), ok, nil
}

// ReserveNonce implements TxStore.
func (m *MemStore) ReserveNonce(_ context.Context, key, from string, floor uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.reserved[key]; ok {
		return n, nil
	}
	n := max(m.next[from], floor)
	m.next[from] = n + 1
	m.reserved[key] = n
	return n, nil
}

// SaveSigned implements TxStore.
func (m *MemStore) SaveSigned(_ context.Context, key string, p Pending) (Pending, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.signed[key]; ok {
		return clonePending(old), nil
	}
	p = clonePending(p)
	m.signed[key] = p
	return clonePending(p), nil
}

// MarkMined implements TxStore.
func (m *MemStore) MarkMined(_ context.Context, key string, blockNumber uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.signed[key]
	if !ok {
		return fmt.Errorf("mark mined %q: %w", key, ErrUnknownKey)
	}
	p.BlockNumber = blockNumber
	m.signed[key] = p
	return nil
}

// clonePending copies RawTx so callers cannot mutate what the store holds.
func clonePending(p Pending) Pending {
	p.RawTx = append([]byte(nil), p.RawTx...)
	return p
}
