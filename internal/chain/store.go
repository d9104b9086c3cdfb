package chain

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Pending is what a TxStore keeps for one anchor key: the signed transaction exactly as it is (re)broadcast.
type Pending struct {
	// From is the sender address (0x hex, EIP-55), the nonce space the nonce belongs to.
	From string
	// Nonce is the nonce the transaction was signed with.
	Nonce uint64
	// TxHash is the transaction hash (0x hex).
	TxHash string
	// RawTx is the signed transaction in its binary (EIP-2718) encoding, as sent with eth_sendRawTransaction.
	RawTx []byte
	// Digest is the 32 bytes the transaction carries in its data field.
	Digest [32]byte
	// ChainID is the chain the transaction was signed for.
	ChainID uint64
	// BlockNumber is the block the transaction was mined in; 0 while it is not known to be mined.
	BlockNumber uint64
}

// ErrUnknownKey is returned by TxStore.MarkMined when no signed transaction is stored under the key.
var ErrUnknownKey = errors.New("no signed transaction stored under this anchor key")

// ErrNotReserved is returned by TxStore.SaveSigned when key does not hold the reservation of p.Nonce (never reserved,
// or released by ReplaceAbandoned because the key looked abandoned).
var ErrNotReserved = errors.New("anchor key does not hold this nonce")

// Reservation is a nonce of a sender that the store holds and has not recorded as mined.
type Reservation struct {
	// Key is the anchor key holding the nonce (a filler's key for a gap filler, see FillerKey).
	Key string
	// Nonce is the reserved nonce.
	Nonce uint64
	// Age is how long ago the nonce was reserved, by the store's clock (so workers' clocks need not agree).
	Age time.Duration
	// Signed tells whether a signed transaction is stored for Key; Tx is only set then.
	Signed bool
	Tx     Pending
}

// FillerKey is the key a gap filler for nonce of from is stored under. It is deterministic so that two workers
// repairing the same gap meet on one key and the first writer wins.
func FillerKey(from string, nonce uint64) string { return fmt.Sprintf("filler/%s/%d", from, nonce) }

// TxStore records anchor transactions so that anchoring is idempotent per key and nonces are allocated without
// collisions or gaps, also when several workers share one sender key. The Postgres implementation must give the
// same guarantees as MemStore. Any error it returns is reported by the Anchorer as INTERNAL_SERVER_ERROR (the store,
// not the chain, failed); the anchor can be retried with the same key.
//
// Contract, method by method:
//
//   - Load returns the Pending saved by SaveSigned under key (with BlockNumber as last set by MarkMined), or
//     found=false when SaveSigned has not succeeded for key yet. A nonce reserved by ReserveNonce alone is not
//     "found".
//
//   - ReserveNonce returns the nonce that key uses in the nonce space of from. It is idempotent per key: once a nonce
//     is reserved for key, every later call with that key returns the same nonce, whatever floor it passes, also when
//     two calls with the same key race (one of them wins, both return the winner's nonce). For a new key it assigns
//     n = max(next[from], floor), sets next[from] = n+1 and records key → (from, n), all in ONE atomic step that is
//     serialised per from across every worker and process (Postgres: one transaction that inserts or updates the
//     per-sender counter row with `... ON CONFLICT (from_address) DO UPDATE SET next_nonce =
//     GREATEST(counter.next_nonce, $floor) + 1 RETURNING next_nonce - 1`, which row-locks the counter, and inserts
//     the key row in the same transaction; a unique violation on the key means another worker won: re-read its
//     nonce). floor is the node's pending nonce of from, so nonces used outside the service are skipped. Because the
//     reservation is tied to the key, a worker that crashes after reserving leaves no permanent gap: the retry of the
//     same key takes the same nonce and fills it, and a key that is never retried is filled by the Anchorer's gap
//     repair (Unsettled, ReplaceAbandoned). ReserveNonce must record when it reserved, for Reservation.Age.
//
//   - SaveSigned stores p under key if no signed transaction is stored there yet and returns what is stored
//     afterwards: p itself, or the earlier winner when another worker saved first ("first writer wins", like
//     INSERT ... ON CONFLICT DO NOTHING followed by SELECT). The caller broadcasts only the returned Pending, so two
//     workers racing on one key send the same bytes. It must be durable before it returns: the Anchorer broadcasts
//     right after.
//
//   - SaveSigned fails with ErrNotReserved (wrapped) unless key holds the reservation of p.Nonce in p.From's space
//     (in the same atomic step as the write: Postgres puts sender and nonce in the UPDATE's WHERE). A worker that
//     stalled longer than the repair grace may have lost its nonce to a filler; it must not store a second
//     transaction for that nonce, and its retry reserves a fresh one.
//
//   - MarkMined records the block number of the transaction saved under key, replacing one recorded before (a
//     transaction re-broadcast to a node that lost it is mined again, in another block). It returns ErrUnknownKey
//     (wrapped) if SaveSigned never succeeded for key. Setting it again with the same value is a no-op. A store that
//     keeps the block elsewhere too (Postgres: the assertions anchored under key) updates it there as well.
//
//   - Unsettled lists the reservations of from with lo <= nonce < hi whose block MarkMined has not recorded, ordered
//     by nonce, each with its age and, if signed, its transaction. The Anchorer asks for [0, node's mined nonce) to
//     record the blocks of transactions mined without their own waiter (see recordMined).
//
//   - Reservations lists every reservation of from with lo <= nonce < hi, ordered by nonce, like Unsettled but also
//     those with a recorded block (in Tx.BlockNumber). The Anchorer asks for [node's pending nonce, own nonce]: the
//     nonces the node lacks, which keep its own transaction from being mined. A row there with a recorded block is
//     one the node has lost (it was reset, replaced, or rebuilt without it).
//
//   - ForgetMined clears the recorded block of every reservation of from with lo <= nonce < hi: the node lacks
//     those transactions, so the blocks recorded for them are not (or no longer) on its chain. Recording a block
//     again is MarkMined's. Clearing before re-broadcasting makes the repair crash-safe: a row without a block
//     below the node's mined nonce is what recordMined looks for.
//
//   - ReplaceAbandoned gives the nonce held by the unsigned reservation of key to filler (a transaction signed with
//     filler.From and filler.Nonce) in ONE atomic step: if key still holds filler.Nonce of filler.From and has no
//     signed transaction, the reservation is deleted (released: a later ReserveNonce of key reserves a fresh nonce)
//     and filler is stored under FillerKey(filler.From, filler.Nonce). It then returns the filler stored under that
//     key with ok=true: filler itself, or the earlier winner's when another worker replaced first (first writer
//     wins, as SaveSigned). When neither happened (key was signed meanwhile, or holds another nonce) it changes
//     nothing and returns ok=false. Release and store must not be two steps: a crash between them would leave a
//     nonce that no row names, a gap no later repair could find (Postgres: DELETE ... WHERE raw_tx IS NULL and
//     INSERT in one transaction; the DELETE row-locks, so a racing repair waits and then finds no row to delete).
type TxStore interface {
	// Load returns the signed transaction stored under key, found=false if there is none.
	Load(ctx context.Context, key string) (p Pending, found bool, err error)
	// ReserveNonce returns the nonce reserved for key in from's nonce space, reserving max(next, floor) if new.
	ReserveNonce(ctx context.Context, key, from string, floor uint64) (uint64, error)
	// SaveSigned stores p under key unless a signed transaction is already stored there, and returns the stored one.
	SaveSigned(ctx context.Context, key string, p Pending) (Pending, error)
	// MarkMined records the block the transaction under key was mined in; ErrUnknownKey if there is none.
	MarkMined(ctx context.Context, key string, blockNumber uint64) error
	// Unsettled lists from's reservations with lo <= nonce < hi not recorded as mined, by nonce.
	Unsettled(ctx context.Context, from string, lo, hi uint64) ([]Reservation, error)
	// Reservations lists all of from's reservations with lo <= nonce < hi, by nonce, with recorded blocks.
	Reservations(ctx context.Context, from string, lo, hi uint64) ([]Reservation, error)
	// ForgetMined clears the recorded block of from's reservations with lo <= nonce < hi.
	ForgetMined(ctx context.Context, from string, lo, hi uint64) error
	// ReplaceAbandoned releases key's unsigned reservation of filler.Nonce and stores filler in its place.
	ReplaceAbandoned(ctx context.Context, key string, filler Pending) (stored Pending, ok bool, err error)
}
