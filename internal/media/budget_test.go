package media

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An image that needs more memory than the whole budget could never be decoded: refused at once, not queued.
func TestProcess_RefusesDecodeOverBudget(t *testing.T) {
	p := NewProcessor(Limits{DecodeBudget: 8 << 20})
	big := mustPNG(t, 1600, 1600) // 10 MiB of pixels, 50 MiB with Catmull-Rom's buffer
	_, err := p.Process(context.Background(), big)
	require.ErrorIs(t, err, ErrTooManyPixels)
	var me *Error
	require.True(t, errors.As(err, &me))
	require.Contains(t, me.Reason, "1600x1600 PNG needs about 50 MiB to decode, the limit is 8 MiB")

	_, err = p.Process(context.Background(), mustPNG(t, 400, 400))
	require.NoError(t, err, "an image within the budget is decoded")
}

// A decode waits while the budget is held and gives up when its context ends, leaving the budget as it found it.
func TestProcess_WaitsForBudget(t *testing.T) {
	p := NewProcessor(Limits{})
	data := mustPNG(t, 800, 600)
	hold, err := p.acquire(context.Background(), p.Limits().DecodeBudget) // every byte, as concurrent decodes would
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Process(ctx, data)
		done <- err
	}()
	require.Eventually(t, func() bool { return p.waiting.Load() == 1 }, 10*time.Second, time.Millisecond,
		"the decode waits for the budget")
	select {
	case err := <-done:
		t.Fatalf("Process returned while the budget was held: %v", err)
	default:
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)

	// The waiter that gave up took nothing: once the holder releases, a decode runs at once.
	hold()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := p.Process(ctx, data)
	require.NoError(t, err)
	require.Equal(t, 800, res.Width)
	require.True(t, p.budget.TryAcquire(p.Limits().DecodeBudget), "every charge was released")
}
