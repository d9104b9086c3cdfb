package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"
)

// resetTemporal is the persistence-loss drill on the cluster (docs/operators.md, "When Temporal loses its data"):
// Temporal's services stop, its databases are dropped and created again empty at the server's schema, and the
// services start again with the namespace and search attributes registered. badged's processes and database are
// left running: the workers' reconcilers start again the workflows of the issuances still PROCESSING.
func resetTemporal(ctx context.Context, fs *flag.FlagSet, sel *selector, args []string, stdout io.Writer) error {
	yes := fs.Bool("yes", false, "really drop Temporal's databases (every workflow history is lost)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := sel.open(stdout)
	if err != nil {
		return err
	}
	if !*yes {
		return fmt.Errorf("reset-temporal drops %s and %s: every workflow Temporal holds is lost; run again with --yes",
			c.TemporalDB, c.VisibilityDB)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	t0 := time.Now()
	if err := c.StopTemporal(ctx, 30*time.Second); err != nil {
		return err
	}
	if err := c.ResetTemporal(ctx); err != nil {
		return err
	}
	if err := c.Up(ctx); err != nil { // starts Temporal's services again; what runs is kept
		return err
	}
	fmt.Fprintf(stdout, "Temporal reset in %s. Issuances still PROCESSING get their workflow again from a worker's reconciler after ORPHAN_AFTER;\n"+
		"watch: grep 'started again the workflow' %s/logs/worker*.log\n", time.Since(t0).Round(100*time.Millisecond), c.Dir)
	return nil
}
