package stats

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/badged/badged/db"
)

// visitorKeys keep one secret key per UTC day in Postgres (stats_visitor_keys), drawn by whichever process needs it
// first, so every API process names a visitor the same way and counts it once across all of them.
type visitorKeys interface {
	VisitorKey(ctx context.Context, day pgtype.Date) ([]byte, error)
	PutVisitorKey(ctx context.Context, arg db.PutVisitorKeyParams) error
	ForgetVisitors(ctx context.Context, since pgtype.Date) error
}

// visitor is the day's name of a client: HMAC-SHA-256 under the day's key of the client's digest (address and
// User-Agent), 16 bytes. Without the key (deleted after two days) it links to no address and to no other day.
func (r *Recorder) visitor(ctx context.Context, day string, client [16]byte) ([]byte, error) {
	key, err := r.dayKey(ctx, day)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(client[:])
	return m.Sum(nil)[:16], nil
}

// dayKey is the visitor key of day (YYYY-MM-DD): this process's copy, else the stored one, else a fresh one stored
// unless another process stored its own first (then that one is read and used). Only Flush calls it.
func (r *Recorder) dayKey(ctx context.Context, day string) ([]byte, error) {
	if k, ok := r.keys[day]; ok {
		return k, nil
	}
	d, err := pgDate(day)
	if err != nil {
		return nil, err
	}
	k, err := r.store.VisitorKey(ctx, d)
	if db.IsNotFound(err) {
		fresh := make([]byte, 32)
		_, _ = rand.Read(fresh) // crypto/rand.Read never fails (Go 1.24)
		if err = r.store.PutVisitorKey(ctx, db.PutVisitorKeyParams{Day: d, Key: fresh}); err == nil {
			k, err = r.store.VisitorKey(ctx, d)
		}
	}
	if err != nil {
		return nil, err
	}
	for held := range r.keys { // keep today's and yesterday's only
		if held < day {
			delete(r.keys, held)
		}
	}
	r.keys[day] = k
	return k, nil
}

// forgetOld deletes, once a day, the keys and visits of the days before yesterday: yesterday's stay, for the events
// of a flush that straddles midnight. A failure is logged and tried again at the next flush.
func (r *Recorder) forgetOld(ctx context.Context) {
	today := r.clock().UTC().Format(time.DateOnly)
	if r.forgot == today {
		return
	}
	since, _ := pgDate(r.clock().UTC().AddDate(0, 0, -1).Format(time.DateOnly))
	if err := r.store.ForgetVisitors(ctx, since); err != nil {
		r.log.Warn("stats: forgetting old visitors failed; tried again at the next flush", "err", err)
		return
	}
	r.forgot = today
}

func pgDate(day string) (pgtype.Date, error) {
	t, err := time.Parse(time.DateOnly, day)
	return pgtype.Date{Time: t, Valid: true}, err
}
