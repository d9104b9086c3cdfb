package activities

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/metrics"
)

// failures maps the recipients of a chunk that failed a step to their error; a recipient not in it completed it.
type failures map[uuid.UUID]error

// stepFunc runs one step on a chunk of recipients. It returns each recipient's failure, or one error for the
// whole chunk (the chunk could not be read or recorded), which every recipient then fails with.
type stepFunc func(ctx context.Context, ids []uuid.UUID) (failures, error)

// chunkFunc runs a step on the recipients of a chunk that completed the step before it (todo), adding to failed
// (which holds the chunk's unknown ids) the recipients that fail it; loadChunk read them.
type chunkFunc func(ctx context.Context, todo chunk, failed failures) (failures, error)

// onChunk is the stepFunc that reads the chunk, keeps the rows whose last completed step is after, and runs run
// on them: the shape of every step but the anchor step, which reads the chain's state instead.
func (a *Activities) onChunk(after string, run chunkFunc) stepFunc {
	return func(ctx context.Context, ids []uuid.UUID) (failures, error) {
		todo, failed, err := a.loadChunk(ctx, ids, after)
		if err != nil {
			return nil, err
		}
		return run(ctx, todo, failed)
	}
}

// runStep runs a step on a StepBatch and turns the failures into the StepResult the workflow acts on: each
// recipient's errorCode and, from the retry policy table, whether and after which delay it is tried again. This is
// the one place where a step's errors meet the policy, the logs and the metrics. Only a cancelled or expired
// context fails the activity itself, so Temporal retries what the code cannot classify (a worker stopping).
func (a *Activities) runStep(ctx context.Context, step string, in StepBatch, run stepFunc) (StepResult, error) {
	start := time.Now()
	if activity.IsActivity(ctx) {
		start = activity.GetInfo(ctx).StartedTime
	}
	failed, err := run(ctx, in.Assertions)
	if ctx.Err() != nil {
		return StepResult{}, fmt.Errorf("%s: %w", step, ctx.Err())
	}
	if err != nil {
		failed = failures{}
		for _, id := range in.Assertions {
			failed[id] = err
		}
	}
	attempt := in.Attempt
	if activity.IsActivity(ctx) {
		// A step that Temporal re-ran (its worker died) is a retry too.
		attempt += int(activity.GetInfo(ctx).Attempt) - 1
	}
	took := time.Since(start)
	var res StepResult
	for _, id := range in.Assertions {
		ferr, ok := failed[id]
		if !ok || ferr == nil {
			a.Metrics.ObserveActivity(step, metrics.OutcomeSuccess, "", attempt, took)
			continue
		}
		code := codeOf(ferr)
		retry, delay := a.Policy.Decide(code, in.Attempt)
		class := a.Policy.ClassOf(code)
		a.logger(ctx, assertionSubject{id, in.IssuanceID}).WarnContext(ctx, "step failed", "step", step, "errorCode", code,
			"class", class, "stepAttempt", in.Attempt, "retry", retry, "delay", delay, "err", ferr)
		outcome := metrics.OutcomeRetry
		if !retry {
			outcome = metrics.OutcomeFailed
		}
		a.Metrics.ObserveActivity(step, outcome, class, attempt, took)
		res.Failed = append(res.Failed, StepFailure{AssertionID: id, Code: string(code), Retry: retry, Delay: delay,
			Policy: a.Policy.Describe(class)})
	}
	return res, nil
}

// codeOf is the errorCode of a step's error; an error without one is classed by uncodedCode.
func codeOf(err error) errcode.Code {
	if code := errcode.Of(err); code != errcode.Unknown {
		return code
	}
	return uncodedCode(err)
}

// forEach runs fn(i) for i in [0, n) on at most workers goroutines and returns each call's error, by index.
// Signing is CPU work (workers = cores); storing and sending wait on other systems (a few more).
func forEach(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) []error {
	errs := make([]error, n)
	if n == 0 {
		return errs
	}
	workers = max(1, min(workers, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				errs[i] = fn(ctx, i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}
