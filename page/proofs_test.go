package page

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestProofCache: a passed check is kept for proofOKTTL, a failed one for proofFailedTTL; past maxCachedProofs the
// expired entries go first, then all.
func TestProofCache(t *testing.T) {
	var c proofCache
	now := time.Now()
	ok, failed := proofKey{assertion: uuid.New()}, proofKey{assertion: uuid.New()}
	c.put(ok, proofChecks{sig: check{OK: true}, anchor: check{OK: true}}, now)
	c.put(failed, proofChecks{sig: check{OK: false, Detail: "sig.unreadable"}, anchor: check{OK: true}}, now)
	_, hit := c.get(ok, now.Add(proofOKTTL-time.Second))
	require.True(t, hit)
	_, hit = c.get(ok, now.Add(proofOKTTL))
	require.False(t, hit)
	p, hit := c.get(failed, now.Add(proofFailedTTL-time.Second))
	require.True(t, hit)
	require.Equal(t, "sig.unreadable", p.sig.Detail)
	_, hit = c.get(failed, now.Add(proofFailedTTL))
	require.False(t, hit)
	_, hit = c.get(proofKey{assertion: ok.assertion, stored: "elsewhere"}, now)
	require.False(t, hit, "another key")

	c.entries = nil
	for range maxCachedProofs {
		c.put(proofKey{assertion: uuid.New()}, proofChecks{sig: check{OK: true}, anchor: check{OK: true}}, now)
	}
	require.Len(t, c.entries, maxCachedProofs)
	c.put(proofKey{assertion: uuid.New()}, proofChecks{}, now)
	require.Len(t, c.entries, 1, "full, none expired: started over")
	for range maxCachedProofs - 1 {
		c.put(proofKey{assertion: uuid.New()}, proofChecks{sig: check{OK: true}, anchor: check{OK: true}}, now)
	}
	later := now.Add(proofOKTTL)
	c.put(ok, proofChecks{sig: check{OK: true}, anchor: check{OK: true}}, later)
	require.Len(t, c.entries, 1, "full, all expired: swept")
}
