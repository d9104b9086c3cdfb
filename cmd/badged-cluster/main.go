// Command badged-cluster runs badged's production topology on this machine, without containers (deploy/cluster):
// Temporal's own server as four processes on Postgres, badged's APIs behind a balancer and its workers, and S3,
// SMTP and the chain node as processes of their own. `make cluster` and `make cluster-down` call it.
//
//	badged-cluster up [flags]        build Temporal if needed, start what is not running, print where it listens
//	badged-cluster down [--purge]    stop every process; say what is kept, or drop the databases and the state
//	badged-cluster status [--json]   every process, its pid (for RSS/CPU sampling) and address
//	badged-cluster start|stop|kill NAME   one process (temporal-history, worker1, …)
//	badged-cluster mail              the messages the SMTP server accepted
//	badged-cluster reset-temporal --yes   the persistence-loss drill: Temporal's databases dropped and made again
//
// It also serves the cluster's own processes: serve-smtp, serve-chain, serve-lb and serve-ui (the Temporal UI).
//
// It imports deploy/cluster and the test servers it runs as processes (internal/blob/s3test,
// internal/chain/devchain, internal/notify/smtptest).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/badged/badged/deploy/cluster"
	"github.com/badged/badged/internal/blob/s3test"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/notify/smtptest"
)

const usage = `usage: badged-cluster <command> [flags]

commands:
  up [--name N] [--dir D] [--postgres URL] [--apis N] [--workers N] [--port-offset N] [--badged BIN]
                   start what does not run (idempotent: a process that died is started again, what runs is kept)
                   and print where everything listens
  down [--purge]   stop every process (badged first, the outside systems last) and say what is kept: the
                   databases and the state directory; --purge drops the databases and removes the directory
  status [--json]  every process with its pid and address
  start|stop|kill NAME
                   one process: start it, stop it (SIGTERM), or SIGKILL it
  mail             the messages the cluster's SMTP server accepted
  reset-temporal --yes
                   the persistence-loss drill (docs/operators.md): stop Temporal's services, drop its two databases
                   and create them again empty, start the services; badged's processes and database are kept

Every command takes --name N (or the --port-offset it was started with) or --dir D to pick the cluster: clusters
with other names have databases (badged_cluster_N, temporal_N, temporal_visibility_N) and a state directory
(.data/cluster-N) of their own, so several run on one Postgres. Without a name, a --port-offset other than 10000
names the cluster pOFFSET.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "badged-cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return errors.New("no command")
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	sel := &selector{} // filled by fs.Parse, in each command
	fs.StringVar(&sel.dir, "dir", "", "state directory: pids, logs and data (default .data/cluster, or .data/cluster-NAME)")
	fs.StringVar(&sel.name, "name", "", "cluster name: its databases and state directory carry it (a-z, 0-9, _)")
	fs.IntVar(&sel.offset, "port-offset", cluster.DefaultOffset, "added to each part's usual port (API 8080, Temporal 7233…)")
	switch cmd {
	case "up":
		return up(ctx, fs, sel, args, stdout)
	case "down":
		purge := fs.Bool("purge", false, "also drop the cluster's databases and remove its state directory")
		if err := fs.Parse(args); err != nil {
			return err
		}
		c, err := sel.open(stdout)
		if err != nil {
			return err
		}
		return down(ctx, c, *purge, stdout)
	case "status":
		asJSON := fs.Bool("json", false, "print JSON")
		if err := fs.Parse(args); err != nil {
			return err
		}
		c, err := sel.open(stdout)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(c.Status())
		}
		printStatus(stdout, c)
		return nil
	case "start", "stop", "kill":
		return one(ctx, cmd, fs, sel, args, stdout)
	case "reset-temporal":
		return resetTemporal(ctx, fs, sel, args, stdout)
	case "mail":
		if err := fs.Parse(args); err != nil {
			return err
		}
		return printMail(stdout, sel.stateDir())
	case "serve-smtp":
		return serveSMTP(ctx, fs, args)
	case "serve-chain":
		return serveChain(ctx, fs, args, stdout)
	case "serve-lb":
		return serveLB(ctx, fs, args)
	case "serve-ui":
		return serveUI(ctx, fs, args, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stdout, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

func up(ctx context.Context, fs *flag.FlagSet, sel *selector, args []string, stdout io.Writer) error {
	var cfg cluster.Config
	fs.StringVar(&cfg.Postgres, "postgres", "postgres://postgres@localhost:5432/postgres?sslmode=disable",
		"Postgres server for Temporal's and badged's databases")
	fs.IntVar(&cfg.APIs, "apis", 2, "badged serve processes")
	fs.IntVar(&cfg.Workers, "workers", 2, "badged worker processes")
	badged := fs.String("badged", "bin/badged", "production build of badged (make build)")
	fs.StringVar(&cfg.Repo, "repo", ".", "repository root")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.Name, cfg.Dir = sel.clusterName(), sel.stateDir()
	if err := cluster.CheckName(cfg.Name); err != nil {
		return err
	}
	cfg.Ports = cluster.DefaultPorts(cfg.APIs, cfg.Workers, sel.offset)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute) // the first Temporal build included
	defer cancel()
	var err error
	if cfg.Bin.TemporalServer, cfg.Bin.SQLTool, err = cluster.BuildTemporal(ctx, cfg.Repo, stdout); err != nil {
		return err
	}
	if cfg.Bin.Tool, err = os.Executable(); err != nil {
		return err
	}
	if cfg.Bin.Versitygw, err = s3test.FindBinary(); err != nil {
		return fmt.Errorf("%w: run make tools", err)
	}
	if cfg.Bin.Badged, err = filepath.Abs(*badged); err != nil {
		return err
	}
	c, err := cluster.New(cfg, stdout)
	if err != nil {
		return err
	}
	if err := c.Up(ctx); err != nil {
		return err
	}
	printStatus(stdout, c)
	stop := "make cluster-down"
	if cfg.Name != "" {
		stop += " CLUSTER_NAME=" + cfg.Name
	}
	fmt.Fprintf(stdout, `
API (balancer over the APIs):   %s   e.g. curl %s/readyz
Temporal frontend:              %s   namespace %s   (TEMPORAL_ADDRESS=%s, temporal --address %s)
Temporal UI:                    %s
Postgres databases:             %s, %s, %s on %s
Mail accepted by SMTP:          %s (badged-cluster mail)
Logs: %s/logs   pids: %s/pids   stop everything: %s
`, c.BaseURL(), c.BaseURL(), c.FrontendAddr(), c.Namespace, c.FrontendAddr(), c.FrontendAddr(), c.UIURL(),
		c.BadgedDB, c.TemporalDB, c.VisibilityDB, redact(c.Postgres), c.MailJournal(), c.Dir, c.Dir, stop)
	return nil
}

// one starts, stops or kills one process of the cluster in dir.
func one(ctx context.Context, cmd string, fs *flag.FlagSet, sel *selector, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%s: which process?", cmd)
	}
	name, args := args[0], args[1:]
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := sel.open(stdout)
	if err != nil {
		return err
	}
	p := c.Process(name)
	if p == nil {
		return fmt.Errorf("no process %q (see badged-cluster status)", name)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	switch cmd {
	case "start":
		err = p.Start(ctx)
	case "stop":
		err = p.Stop(ctx, 30*time.Second)
	default:
		err = p.Kill(ctx)
	}
	if err == nil {
		done := map[string]string{"start": "running as pid " + fmt.Sprint(p.Pid()), "stop": "stopped", "kill": "killed"}
		fmt.Fprintf(stdout, "%s: %s\n", name, done[cmd])
	}
	return err
}

func printStatus(w io.Writer, c *cluster.Cluster) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROCESS\tPID\tLISTENS\tLOG")
	for _, s := range c.Status() {
		pid := "-"
		if s.Pid != 0 {
			pid = fmt.Sprint(s.Pid)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, pid, s.Addr, s.Log)
	}
	tw.Flush()
}

func printMail(w io.Writer, dir string) error {
	c, err := cluster.Load(dir)
	if err != nil {
		return err
	}
	msgs, err := smtptest.ReadJournal(c.WithDefaults().MailJournal())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TO\tSUBJECT\tMESSAGE-ID")
	dec := new(mime.WordDecoder)
	for _, m := range msgs {
		subject := ""
		if parsed, err := mail.ReadMessage(strings.NewReader(string(m.Data))); err == nil {
			subject, _ = dec.DecodeHeader(parsed.Header.Get("Subject"))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.Join(m.To, ","), subject, m.MessageID)
	}
	fmt.Fprintf(tw, "%d messages\n", len(msgs))
	return tw.Flush()
}

// serveSMTP is the cluster's SMTP server: smtptest's server, the one the e2e tests run in-process, journaling
// every accepted message so that the tests and `badged-cluster mail` read what it accepted.
func serveSMTP(ctx context.Context, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "127.0.0.1:11025", "listen address")
	journal := fs.String("journal", "", "file every accepted message is appended to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := smtptest.Listen(*addr, smtptest.Options{NoTLS: true, Journal: *journal})
	if err != nil {
		return err
	}
	fmt.Printf("smtp listening on %s, journal %s\n", s.Addr(), *journal)
	<-ctx.Done()
	return s.Close()
}

// serveChain is the cluster's chain node: the dev chain of `badged dev`, one block a second, its blocks journaled
// in --dir so a restart (or a kill -9) replays them.
func serveChain(ctx context.Context, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	addr := fs.String("addr", "127.0.0.1:18545", "JSON-RPC listen address")
	data := fs.String("data", "", "data directory (blocks journal)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := devchain.Start(devchain.Config{Addr: *addr, DataDir: *data, BlockInterval: time.Second})
	if err != nil {
		return err
	}
	r := c.Replayed()
	fmt.Fprintf(stdout, "chain node at %s (chain id %d, sender %s): replayed %d blocks, %d pooled, %d mismatches\n",
		c.URL(), devchain.ChainID, c.Address().Hex(), r.Blocks, r.Pooled, r.Differs)
	<-ctx.Done()
	return c.Close()
}

// serveLB is the balancer in front of the APIs (cluster.Balancer).
func serveLB(ctx context.Context, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "127.0.0.1:18080", "listen address")
	var backends backendList
	fs.Var(&backends, "backend", "base URL of an API process (repeat)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(backends) == 0 {
		return errors.New("serve-lb: no --backend")
	}
	b := cluster.NewBalancer(backends)
	go b.Check(ctx, 500*time.Millisecond)
	srv := &http.Server{Addr: *addr, Handler: b, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

type backendList []*url.URL

func (b *backendList) String() string { return fmt.Sprint(*b) }

func (b *backendList) Set(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("backend %q: must be a URL such as http://127.0.0.1:18081", s)
	}
	*b = append(*b, u)
	return nil
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable)"
	}
	return u.Redacted()
}
