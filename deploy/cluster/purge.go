package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kept is what a stopped cluster leaves behind for its next Up: its three databases on Postgres and its state
// directory (logs, the S3 objects, the chain's blocks, the mail journal and the issuer key ring).
type Kept struct {
	Databases []string
	Postgres  string
	Dir       string
	DirBytes  int64 // the size of Dir's files
}

// Kept says what the cluster keeps when its processes stop.
func (c *Cluster) Kept() (Kept, error) {
	k := Kept{Databases: c.Databases(), Postgres: c.Postgres, Dir: c.Dir}
	err := filepath.WalkDir(c.Dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a process removed a file meanwhile
			}
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err == nil {
				k.DirBytes += info.Size()
			}
		}
		return nil
	})
	return k, err
}

// Purge drops the cluster's databases and removes its state directory: what Down keeps. Every process must be
// stopped first (a running one is refused, by name). The databases are dropped by Temporal's SQL tool, the one that
// created Temporal's (deploy/temporal/schema.sh): it ends the connections still open and skips a database that does
// not exist, so a purge interrupted halfway is run again to its end. The directory goes last: it holds the
// configuration (cluster.json) a second purge needs.
func (c *Cluster) Purge(ctx context.Context) error {
	var running []string
	for _, p := range c.procs {
		if p.Pid() != 0 {
			running = append(running, p.Name)
		}
	}
	if len(running) > 0 {
		return fmt.Errorf("purge: %s still running; stop the cluster first (make cluster-down)", strings.Join(running, ", "))
	}
	if _, err := os.Stat(c.Bin.SQLTool); err != nil {
		// The tool the cluster ran with is gone (.tools cleaned): build it again, as up would.
		if c.Bin.SQLTool, err = BuildSQLTool(ctx, c.Repo, c.log); err != nil {
			return fmt.Errorf("purge: %w", err)
		}
	}
	for _, name := range c.Databases() {
		if err := c.dropDatabase(ctx, name); err != nil {
			return err
		}
		c.logf("dropped database %s", name)
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		return fmt.Errorf("purge: remove %s: %w", c.Dir, err)
	}
	c.logf("removed %s", c.Dir)
	return nil
}

// dropDatabase drops one database with `temporal-sql-tool drop-database`.
func (c *Cluster) dropDatabase(ctx context.Context, name string) error {
	host, port, user, password := c.postgresParts()
	cmd := exec.CommandContext(ctx, c.Bin.SQLTool, "--db", name, "drop-database", "--force")
	cmd.Env = []string{"SQL_PLUGIN=postgres12", "SQL_HOST=" + host, "SQL_PORT=" + port, "SQL_USER=" + user,
		"SQL_PASSWORD=" + password}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("drop database %s: %w\n%s", name, err, out)
	}
	return nil
}
