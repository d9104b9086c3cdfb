package chain

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAnchor measures one anchor round trip (sign, record, broadcast, mined, receipt checked) on the simulated
// chain over HTTP JSON-RPC, blocks sealed every 2 ms.
func BenchmarkAnchor(b *testing.B) {
	c := mustTestChain(b)
	c.autoCommit(b, 2*time.Millisecond)
	cfg := c.config()
	cfg.PollInterval = time.Millisecond
	a := mustAnchorer(b, cfg, NewMemStore())
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := a.Anchor(ctx, fmt.Sprintf("bench-%d", i), digestOf(fmt.Sprint(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnchorParallel measures anchor throughput with concurrent keys sharing one sender key.
func BenchmarkAnchorParallel(b *testing.B) {
	c := mustTestChain(b)
	c.autoCommit(b, 2*time.Millisecond)
	cfg := c.config()
	cfg.PollInterval = time.Millisecond
	a := mustAnchorer(b, cfg, NewMemStore())
	ctx := context.Background()
	b.SetParallelism(16)
	var seq atomicCounter
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := seq.next()
			if _, err := a.Anchor(ctx, fmt.Sprintf("bench-%d", i), digestOf(fmt.Sprint(i))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAnchorBatch1000 anchors 1,000 credentials per op as one Merkle batch; see the per-credential metrics.
func BenchmarkAnchorBatch1000(b *testing.B) {
	c := mustTestChain(b)
	c.autoCommit(b, 2*time.Millisecond)
	cfg := c.config()
	cfg.PollInterval = time.Millisecond
	a := mustAnchorer(b, cfg, NewMemStore())
	ctx := context.Background()
	var gas uint64
	ops := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		batch, err := a.AnchorBatch(ctx, fmt.Sprintf("batch-%d", i), testDigests(fmt.Sprint(i), 1000))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		gas += mustGasUsed(b, c, batch.TxHash)
		ops++
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops*1000), "ns/credential")
	b.ReportMetric(float64(gas)/float64(ops*1000), "gas/credential")
}

// BenchmarkBuildMerkle1000 is the CPU cost of the tree and the 1,000 proofs alone.
func BenchmarkBuildMerkle1000(b *testing.B) {
	digests := testDigests("m", 1000)
	for b.Loop() {
		BuildMerkle(digests)
	}
}

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) next() int64 { return c.n.Add(1) }
