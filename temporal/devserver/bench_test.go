package devserver

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// BenchmarkStart measures a server start on a new directory (schema
// creation included) and on a directory that already holds a database.
func BenchmarkStart(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			startStop(b, b.TempDir())
		}
	})
	b.Run("warm", func(b *testing.B) {
		dir := b.TempDir()
		startStop(b, dir)
		for b.Loop() {
			startStop(b, dir)
		}
	})
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			startStop(b, "")
		}
	})
}

func startStop(b *testing.B, dir string) {
	s, err := Start(context.Background(), Options{Dir: dir, SearchAttributes: badgedAttributes, Logger: testLogger()})
	require.NoError(b, err)
	require.NoError(b, s.Stop())
}

// BenchmarkThroughput runs 200 workflows of one regular activity each per
// iteration through a real worker and reports workflows/s.
func BenchmarkThroughput(b *testing.B) {
	const n = 200
	stores := []struct {
		name string
		opts func(b *testing.B) Options
	}{
		{"sqlite-file", func(b *testing.B) Options { return Options{Dir: b.TempDir()} }},
		{"sqlite-memory", func(*testing.B) Options { return Options{} }},
		{"postgres", func(b *testing.B) Options { return Options{PostgresURL: postgresURL(b)} }},
		// What a dev server can afford: commits not flushed to disk.
		{"postgres-async-commit", func(b *testing.B) Options {
			return Options{PostgresURL: postgresURL(b) + "?synchronous_commit=off"}
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := startServer(b, st.opts(b))
			c := dial(b, s)
			startWorker(b, c)
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				runMany(b, c, n)
				total += time.Since(start)
			}
			b.ReportMetric(float64(n*b.N)/total.Seconds(), "workflows/s")
		})
	}
}

// runMany starts n workflows from 50 goroutines and waits for every result.
func runMany(b *testing.B, c client.Client, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sem := make(chan struct{}, 50)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: testTaskQueue}, greetWorkflow, fmt.Sprint(i))
			if err == nil {
				err = run.Get(ctx, nil)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
}
