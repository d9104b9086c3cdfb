package activities

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/anchorpool"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
)

// Defaults of the wallet sweep.
const (
	// DefaultWalletAnchorInterval: a claimed copy waits at most this long (plus the mining) for its anchor
	// transaction; copies claimed meanwhile share it, as an issuance's credentials share theirs.
	DefaultWalletAnchorInterval = 30 * time.Second
	// DefaultWalletPurgeInterval: codes and tokens live 10 minutes and are purged a day after; nonces 5 minutes.
	// Every 10 minutes keeps the tables at about one interval of traffic beyond their live rows.
	DefaultWalletPurgeInterval = 10 * time.Minute
	walletSweepTimeout         = 2 * time.Minute
)

// WalletSweep is the worker's background job for the wallet (OpenID4VCI) tables: it anchors the copies claimed
// since its last pass (the claim only marks them pending, in its own transaction, so a wallet never waits for a
// chain), and it deletes expired pre-authorized codes, access tokens and nonces. Several workers may run it: the
// copies are taken with SKIP LOCKED, the deletes are idempotent.
type WalletSweep struct {
	DB     *db.DB
	Anchor Anchorer // nil: copies are not anchored (as issuances are not)
	// Issuer signs the issuance log checkpoints of the copies anchored (nil: copies are not logged).
	Issuer         *issuer.Service
	Log            *slog.Logger
	Metrics        *metrics.Metrics
	AnchorInterval time.Duration // DefaultWalletAnchorInterval when zero
	PurgeInterval  time.Duration // DefaultWalletPurgeInterval when zero
}

// Run sweeps until ctx ends: a purge and an anchor pass at start, then each on its own interval.
func (s WalletSweep) Run(ctx context.Context) {
	anchorEvery, purgeEvery := cmpDur(s.AnchorInterval, DefaultWalletAnchorInterval), cmpDur(s.PurgeInterval, DefaultWalletPurgeInterval)
	anchorT, purgeT := time.NewTicker(anchorEvery), time.NewTicker(purgeEvery)
	defer anchorT.Stop()
	defer purgeT.Stop()
	s.purge(ctx)
	s.anchor(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-purgeT.C:
			s.purge(ctx)
		case <-anchorT.C:
			s.anchor(ctx)
		}
	}
}

func cmpDur(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s WalletSweep) purge(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, walletSweepTimeout)
	defer cancel()
	if _, err := s.PurgeOnce(ctx); err != nil && ctx.Err() == nil {
		s.Log.WarnContext(ctx, "wallet purge failed; next pass retries", "err", err)
	}
}

func (s WalletSweep) anchor(ctx context.Context) {
	if s.Anchor == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, walletSweepTimeout)
	defer cancel()
	if _, err := s.AnchorOnce(ctx); err != nil && ctx.Err() == nil {
		s.Log.WarnContext(ctx, "wallet anchor failed; next pass retries", "err", err)
	}
}

// PurgeOnce deletes the expired codes, tokens, nonces and VC-API exchange challenges and logs how many of each.
func (s WalletSweep) PurgeOnce(ctx context.Context) (db.PurgeWalletSecretsRow, error) {
	n, err := s.DB.PurgeWalletSecrets(ctx)
	if err != nil {
		return n, fmt.Errorf("purge wallet secrets: %w", err)
	}
	challenges, err := s.DB.PurgeExchangeChallenges(ctx)
	if err != nil {
		return n, fmt.Errorf("purge exchange challenges: %w", err)
	}
	s.Metrics.WalletSecretsPurged("challenge", challenges)
	s.Metrics.WalletSecretsPurged("code", n.Codes)
	s.Metrics.WalletSecretsPurged("token", n.Tokens)
	s.Metrics.WalletSecretsPurged("nonce", n.Nonces)
	if n.Codes+n.Tokens+n.Nonces+challenges > 0 {
		s.Log.InfoContext(ctx, "wallet secrets purged", "codes", n.Codes, "tokens", n.Tokens, "nonces", n.Nonces,
			"exchangeChallenges", challenges)
	}
	return n, nil
}

// AnchorOnce finishes the copies' anchor transactions a previous pass left unmined, then assigns the pending
// copies (up to anchorpool.MaxBatch) to a new one and sends it, waiting until it is mined. It returns how many copies
// it anchored. The assignment commits before the transaction is signed, so a crash in between leaves an anchor
// key the next pass sends (the chain store's nonce reservation makes the key's transaction one, whatever the retries).
func (s WalletSweep) AnchorOnce(ctx context.Context) (int, error) {
	keys, err := s.DB.ListUnminedWalletAnchors(ctx)
	if err != nil {
		return 0, fmt.Errorf("list unmined wallet anchors: %w", err)
	}
	anchored := 0
	for _, key := range keys {
		n, err := s.send(ctx, key)
		if err != nil {
			return anchored, err
		}
		anchored += n
	}
	key := "wallet-anchor/" + uuid.NewString()
	assigned, err := s.assign(ctx, key)
	if err != nil || assigned == 0 {
		return anchored, err
	}
	n, err := s.send(ctx, key)
	return anchored + n, err
}

// assign gives the pending copies (oldest first) the anchor key and each its Merkle inclusion proof, in one
// transaction (see merkleAssignment).
func (s WalletSweep) assign(ctx context.Context, key string) (int, error) {
	var assigned int
	err := s.DB.InTx(ctx, func(q *db.Queries) error {
		rows, err := q.LockPendingWalletCopies(ctx, anchorpool.MaxBatch)
		if err != nil || len(rows) == 0 {
			return err
		}
		checkpoints, err := s.logCopies(ctx, q, rows, key)
		if err != nil {
			return err
		}
		leaves := anchorLeaves(rows, func(r db.LockPendingWalletCopiesRow) (uuid.UUID, []byte) { return r.ID, r.CredentialSha256 }, checkpoints)
		p := db.AssignWalletAnchorParams{AnchorKey: key}
		if p.Ids, p.Proofs, err = assignLeaves(ctx, q, leaves); err != nil {
			return err
		}
		n, err := q.AssignWalletAnchor(ctx, p)
		if err == nil && int(n) != len(rows) {
			err = fmt.Errorf("assigned %d of %d locked copies", n, len(rows))
		}
		assigned = int(n)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("assign wallet anchor: %w", err)
	}
	return assigned, nil
}

// send sends (or finds sent) the transaction of key and waits until it is mined; the chain store records the
// block under the key, which is where a copy's receipt reads it.
func (s WalletSweep) send(ctx context.Context, key string) (int, error) {
	members, err := s.DB.ListWalletAnchorMembers(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("load wallet anchor members: %w", err)
	}
	digests := make([][32]byte, len(members))
	for i, m := range members {
		copy(digests[i][:], m.CredentialSha256)
	}
	if digests, err = withCheckpointRoots(ctx, s.DB.Queries, key, digests); err != nil {
		return 0, fmt.Errorf("load issuance log checkpoints of the wallet anchor: %w", err)
	}
	b, err := s.Anchor.AnchorBatch(ctx, key, digests)
	if err != nil {
		return 0, fmt.Errorf("anchor wallet copies (%s): %w", key, err)
	}
	s.Log.InfoContext(ctx, "wallet copies anchored", "anchorKey", key, "copies", len(members), "txHash", b.TxHash,
		"block", b.BlockNumber)
	return len(members), nil
}

// logCopies appends the live copies of an anchor batch to their organizations' issuance logs, in claim order, in
// the assignment's transaction (as the anchor step does for issuances): a copy is signed with the organization's
// key too. Its entry's id is the copy's urn:uuid id.
func (s WalletSweep) logCopies(ctx context.Context, q *db.Queries, rows []db.LockPendingWalletCopiesRow, key string) ([]loggedCheckpoint, error) {
	if s.Issuer == nil {
		return nil, nil
	}
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	copies, err := q.ListWalletLogCandidates(ctx, ids)
	if err != nil || len(copies) == 0 {
		return nil, err
	}
	logRows := make([]logRow, len(copies))
	for i, c := range copies {
		logRows[i] = newLogRow(c.OrgID, "urn:uuid:"+c.ID.String(), c.CredentialSha256, c.IssuedAt)
	}
	return appendToLogs(ctx, q, s.Issuer, logRows, &key)
}
