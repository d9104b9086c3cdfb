package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/badged/badged/deploy/cluster"
)

// selector picks a cluster by the flags every command takes: --dir, or the directory of --name (or of the name
// --port-offset gives it).
type selector struct {
	dir, name string
	offset    int
}

// clusterName is the name the flags give the cluster (cluster.NameFor).
func (s selector) clusterName() string { return cluster.NameFor(s.name, s.offset) }

func (s selector) stateDir() string {
	if s.dir != "" {
		return s.dir
	}
	return cluster.DirFor(s.clusterName())
}

func (s selector) open(log io.Writer) (*cluster.Cluster, error) {
	if err := cluster.CheckName(s.name); err != nil {
		return nil, err
	}
	return cluster.Open(s.stateDir(), log)
}

// down stops the cluster and says what it kept, or, with purge, removes that too.
func down(ctx context.Context, c *cluster.Cluster, purge bool, stdout io.Writer) error {
	if err := c.Down(ctx); err != nil {
		return err
	}
	kept, err := c.Kept()
	if err != nil {
		return err
	}
	if purge {
		if err := c.Purge(ctx); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "purged: dropped databases %s on %s; removed %s (%s)\n",
			strings.Join(kept.Databases, ", "), redact(kept.Postgres), kept.Dir, humanBytes(kept.DirBytes))
		return nil
	}
	purgeCmd := "make cluster-purge"
	if c.Name != "" {
		purgeCmd += " CLUSTER_NAME=" + c.Name
	}
	fmt.Fprintf(stdout, `stopped. Kept, for the next make cluster:
  databases %s on %s
  %s (%s: logs, S3 objects, chain blocks, mail, the issuer key ring)
Remove them with: %s (badged-cluster down --purge)
`, strings.Join(kept.Databases, ", "), redact(kept.Postgres), kept.Dir, humanBytes(kept.DirBytes), purgeCmd)
	return nil
}

// humanBytes writes n as B, KB, MB or GB (powers of 1024, one decimal above KB).
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", n>>10)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}
