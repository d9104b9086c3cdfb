package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/badged/badged/internal/chain/devchain"
)

// MailFrom is the sender of the cluster's mail.
const MailFrom = "badged <no-reply@badged.localhost>"

// badgedEnv is the configuration every badged process of the cluster shares (README "Configuration"), then the
// Config's own Env. The issuer key ring is read from Dir/issuer-keyring (made by Up).
func (c *Cluster) badgedEnv() []string {
	key := devchain.DevKey(devchain.DefaultSeed)
	ring, _ := os.ReadFile(c.keyringFile())
	db := c.DatabaseURL(c.BadgedDB)
	sep := "?"
	if strings.Contains(db, "?") {
		sep = "&"
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"DATABASE_URL=" + db + sep + "pool_max_conns=" + strconv.Itoa(c.BadgedPool),
		"PUBLIC_BASE_URL=" + c.BaseURL(),
		"TEMPORAL_ADDRESS=" + c.FrontendAddr(),
		"TEMPORAL_NAMESPACE=" + c.Namespace,
		"TEMPORAL_UI_URL=" + c.UIURL(), // the links badged prints open the cluster's own UI
		"ISSUER_KEY_RING=" + strings.TrimSpace(string(ring)),
		"CHAIN_RPC_URL=" + c.ChainURL(),
		"CHAIN_PRIVATE_KEY=" + hex.EncodeToString(crypto.FromECDSA(key)),
		"CHAIN_ID=" + strconv.Itoa(devchain.ChainID),
		"SMTP_HOST=" + c.Host,
		"SMTP_PORT=" + strconv.Itoa(c.Ports[portSMTP]),
		"SMTP_TLS=none", // a loopback catcher without a certificate, as mailpit in the compose stack
		"SMTP_FROM=" + MailFrom,
		"BLOB_BACKEND=s3",
		"S3_ENDPOINT=" + c.S3Endpoint(),
		"S3_REGION=" + S3Region,
		"S3_BUCKET=" + S3Bucket,
		"S3_ACCESS_KEY=" + S3AccessKey,
		"S3_SECRET_KEY=" + S3SecretKey,
		"S3_PATH_STYLE=true",
		"LOG_FORMAT=text",
	}
	return append(env, c.Env...)
}

// badgedProcs are the APIs, the workers and the round-robin balancer in front of the APIs. Each keeps its own
// DATA_DIR (the outbox of test-mode issuances) under Dir.
func (c *Cluster) badgedProcs() []*Process {
	var procs []*Process
	var backends []string
	for i := 1; i <= c.APIs; i++ {
		name := apiName(i)
		addr := c.addr(name)
		env := append(c.badgedEnv(), "HTTP_ADDR="+addr, "METRICS_ADDR="+c.addr(name+".metrics"), "DATA_DIR="+filepath.Join(c.Dir, name))
		procs = append(procs, c.newProcess(name, roleBadged, "http://"+addr, c.Bin.Badged, []string{"serve"}, env,
			httpOK("http://"+addr+"/readyz")))
		backends = append(backends, "--backend", "http://"+addr)
	}
	for i := 1; i <= c.Workers; i++ {
		name := workerName(i)
		addr := c.addr(name + ".metrics")
		env := append(c.badgedEnv(), "METRICS_ADDR="+addr, "DATA_DIR="+filepath.Join(c.Dir, name))
		procs = append(procs, c.newProcess(name, roleBadged, "http://"+addr+"/metrics", c.Bin.Badged, []string{"worker"},
			env, httpOK("http://"+addr+"/metrics")))
	}
	procs = append(procs, c.newProcess(portLB, roleBadged, c.BaseURL(), c.Bin.Tool,
		append([]string{"serve-lb", "--addr", c.addr(portLB)}, backends...), nil, httpOK(c.BaseURL()+"/readyz")))
	// The console: started with the APIs, once Temporal's frontend answers.
	procs = append(procs, c.newProcess(portUI, roleBadged, c.UIURL(), c.Bin.Tool,
		[]string{"serve-ui", "--addr", c.addr(portUI), "--frontend", c.FrontendAddr(), "--namespace", c.Namespace}, nil,
		httpOK(c.UIURL()+"/healthz")))
	return procs
}

func (c *Cluster) keyringFile() string { return filepath.Join(c.Dir, "issuer-keyring") }

// ensureKeyring makes the key ring that seals issuer keys once; every later Up reuses it, or the keys sealed
// before could not be opened.
func (c *Cluster) ensureKeyring() error {
	if _, err := os.Stat(c.keyringFile()); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	return os.WriteFile(c.keyringFile(), []byte("cluster:"+base64.StdEncoding.EncodeToString(key)+"\n"), 0o600)
}

// migrate creates badged's database if missing and applies the migrations (`badged migrate`).
func (c *Cluster) migrate(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, c.Bin.Badged, "migrate")
	// Without pool_max_conns: migrate creates the database through a plain connection, which refuses the option.
	cmd.Env = append(c.badgedEnv(), "DATABASE_URL="+c.DatabaseURL(c.BadgedDB))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("badged migrate: %w\n%s", err, out)
	}
	return nil
}
