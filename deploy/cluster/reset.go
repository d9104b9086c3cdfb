package cluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// The persistence-loss drill (docs/operators.md, "When Temporal loses its data"): Temporal's services stop, its two
// databases are lost and created again empty, the services start on them. badged's database and processes are left
// alone: the reconciler of every worker finds the PROCESSING issuances whose workflow Temporal no longer has and
// starts them again from the step Postgres recorded. `badged-cluster reset-temporal` runs the three steps,
// TestFaults_ClusterPersistenceLossDrill runs them during an issuance.

// StopTemporal stops Temporal's four services, each with SIGTERM and, after grace, SIGKILL; services that do not
// run are skipped. badged's processes keep running: their clients retry until a frontend answers again.
func (c *Cluster) StopTemporal(ctx context.Context, grace time.Duration) error {
	var g errgroup.Group
	for _, p := range c.role(roleTemporal) {
		if p.Pid() == 0 {
			continue
		}
		g.Go(func() error {
			if err := p.Stop(ctx, grace); err != nil {
				return err
			}
			c.logf("stopped %s", p.Name)
			return nil
		})
	}
	return g.Wait()
}

// ResetTemporal drops Temporal's two databases (the history's and visibility's) and creates them again at the
// server's schema, empty, as Up does on a new cluster: Temporal has lost every workflow, namespace and search
// attribute. badged's database is not touched. Temporal's services must be stopped first (a running one is refused,
// by name, before anything is dropped: it would write into the new databases, or fail on the dropped ones); Up
// starts them again and registers the namespace and search attributes.
func (c *Cluster) ResetTemporal(ctx context.Context) error {
	var running []string
	for _, p := range c.role(roleTemporal) {
		if p.Pid() != 0 {
			running = append(running, p.Name)
		}
	}
	if len(running) > 0 {
		return fmt.Errorf("reset Temporal: %s still running; stop Temporal's services first", strings.Join(running, ", "))
	}
	if _, err := os.Stat(c.Bin.SQLTool); err != nil {
		if c.Bin.SQLTool, err = BuildSQLTool(ctx, c.Repo, c.log); err != nil {
			return fmt.Errorf("reset Temporal: %w", err)
		}
	}
	for _, name := range c.TemporalDatabases() {
		if err := c.dropDatabase(ctx, name); err != nil {
			return fmt.Errorf("reset Temporal: %w", err)
		}
		c.logf("dropped database %s", name)
	}
	if err := c.temporalSchema(ctx); err != nil {
		return fmt.Errorf("reset Temporal: schema: %w", err)
	}
	c.logf("created %s at the server's schema, empty", strings.Join(c.TemporalDatabases(), " and "))
	return nil
}

// TemporalDatabases are Temporal's two databases: its history's and its visibility's.
func (c Config) TemporalDatabases() []string {
	return []string{c.TemporalDB, c.VisibilityDB}
}
