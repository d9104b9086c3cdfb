package stats

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

// memStore adds flushes in memory; fail makes the next flushes fail.
type memStore struct {
	mu    sync.Mutex
	fail  int
	calls int
	rows  map[string]int64 // assertion|kind|day|bot → n
	order [][]uuid.UUID
}

func (m *memStore) AddAssertionStats(_ context.Context, p db.AddAssertionStatsParams) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.fail > 0 {
		m.fail--
		return errors.New("database down")
	}
	if m.rows == nil {
		m.rows = map[string]int64{}
	}
	for i := range p.AssertionIds {
		k := p.AssertionIds[i].String() + "|" + p.Kinds[i] + "|" + p.Days[i]
		if p.Bots[i] {
			k += "|bot"
		}
		m.rows[k] += p.Ns[i]
	}
	m.order = append(m.order, p.AssertionIds)
	return nil
}

func TestIsBot(t *testing.T) {
	for ua, want := range map[string]bool{
		"": true, "   ": true,
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36": false,
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 KAKAOTALK 10.4.5":  false,
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":                                    true,
		"LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)":                       true,
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)":                                   true,
		"Twitterbot/1.0": true, "Slackbot-LinkExpanding 1.0": true, "kakaotalk-scrap/1.0": true,
		"Mozilla/5.0 (compatible; Yeti/1.1; +http://naver.me/spd)": true, "curl/8.5.0": true, "Go-http-client/1.1": true,
		"python-requests/2.31": true, "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/126.0 Safari/537.36": true,
		"WhatsApp/2.23.20.0": true,
	} {
		require.Equal(t, want, IsBot(ua), "%q", ua)
	}
}

func TestShareKind(t *testing.T) {
	require.Equal(t, Kind("share_linkedin_add"), ShareKind("linkedin-add"))
	require.Equal(t, Kind("share_x"), ShareKind("x"))
}

// TestRecorder_FailedFlushKeepsCounts: a failed flush merges its counts back, the next one adds them with what came
// since; rows go out sorted by assertion (one lock order for every process).
func TestRecorder_FailedFlushKeepsCounts(t *testing.T) {
	st := &memStore{fail: 1}
	day := time.Date(2025, 3, 1, 23, 59, 0, 0, time.FixedZone("KST", 9*3600)) // 14:59 UTC
	r := NewRecorder(st, Options{Clock: func() time.Time { return day }})
	a, b := Subject{Assertion: uuid.New(), Mode: "live"}, Subject{Assertion: uuid.New(), Mode: "live"}
	r.Record(a, View, "Mozilla/5.0")
	r.Record(a, View, "Mozilla/5.0")
	r.Record(b, View, "curl/8")
	require.Error(t, r.Flush(context.Background()))
	r.Record(a, View, "Mozilla/5.0")
	require.NoError(t, r.Flush(context.Background()))
	require.NoError(t, r.Flush(context.Background()), "nothing left: no call")
	require.Equal(t, 2, st.calls)
	require.Equal(t, map[string]int64{a.Assertion.String() + "|view|2025-03-01": 3, b.Assertion.String() + "|view|2025-03-01|bot": 1}, st.rows)
	ids := st.order[0]
	require.Len(t, ids, 2)
	require.Negative(t, compareUUID(ids[0], ids[1]), "sorted by assertion")
}

func compareUUID(x, y uuid.UUID) int {
	for i := range x {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return 0
}

// TestRecorder_MaxKeys: past the bound, events of new keys are dropped (and counted), held keys still count.
func TestRecorder_MaxKeys(t *testing.T) {
	st := &memStore{}
	r := NewRecorder(st, Options{MaxKeys: 2})
	a, b, c := Subject{Assertion: uuid.New()}, Subject{Assertion: uuid.New()}, Subject{Assertion: uuid.New()}
	r.Record(a, PDF, "x")
	r.Record(b, PDF, "x")
	r.Record(c, PDF, "x") // dropped
	r.Record(a, PDF, "x")
	require.NoError(t, r.Flush(context.Background()))
	require.Len(t, st.rows, 2)
	var total int64
	for _, n := range st.rows {
		total += n
	}
	require.Equal(t, int64(3), total)
}

// TestRecorder_RunFlushesOnStop: cancelling Run flushes what was recorded, with a context of its own.
func TestRecorder_RunFlushesOnStop(t *testing.T) {
	st := &memStore{}
	r := NewRecorder(st, Options{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	r.Record(Subject{Assertion: uuid.New()}, VerifyAPI, "x")
	cancel()
	<-done
	require.Len(t, st.rows, 1)
}

func TestRecorder_NilRecordsNothing(t *testing.T) {
	var r *Recorder
	r.Record(Subject{}, View, "")
	require.NoError(t, r.Flush(context.Background()))
}
