package media

import (
	"context"
	"runtime/debug"
)

// acquire waits until the decode budget can hold cost bytes, or ctx ends. The release function it returns must be
// called once the memory of the decode is unreachable.
//
// Release frees memory first (a collection, and the free pages returned to the system) after a decode that held an
// eighth of the budget or more, or when another decode is waiting. The budget bounds memory only if the bytes it hands
// on are free, and in a collected heap a finished decode's image stays allocated until the next cycle: the next
// decode would grow the heap past the budget, to twice it with the default GOGC (the pacer lets the heap reach twice
// what was live at the last cycle). Returning the pages also keeps a freed span that the next, differently sized
// image cannot reuse from staying resident. Measured, 10 concurrent 36-megapixel uploads with a 256 MiB budget
// (TestUploadImage_MemoryBound) peaked 470-570 MiB over the baseline with no collection, 248-338 MiB with
// runtime.GC, 229-251 MiB with this. A collection marks only the live heap and decoded pixels hold no pointers, so
// it costs milliseconds against the hundreds of a large decode; after a small decode with none waiting, the pacer's
// schedule is enough.
func (p *Processor) acquire(ctx context.Context, cost int64) (release func(), err error) {
	p.waiting.Add(1)
	err = p.budget.Acquire(ctx, cost)
	p.waiting.Add(-1)
	if err != nil {
		return nil, err
	}
	return func() {
		if cost >= p.lim.DecodeBudget/8 || p.waiting.Load() > 0 {
			debug.FreeOSMemory()
		}
		p.budget.Release(cost)
	}, nil
}
