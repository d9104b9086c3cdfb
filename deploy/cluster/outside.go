package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The S3 server's root credentials and bucket: made-up values for a store that listens on loopback only.
const (
	S3Region    = "us-east-1"
	S3Bucket    = "badged"
	S3AccessKey = "badged-cluster"
	S3SecretKey = "badged-cluster-secret"
)

// outsideProcs are the systems badged talks to: S3 (versitygw over Dir/s3), SMTP (badged-cluster serve-smtp,
// journaling every message to Dir/mail) and the dev chain node (badged-cluster serve-chain over Dir/chain).
func (c *Cluster) outsideProcs() []*Process {
	s3Addr, smtpAddr, chainAddr := c.addr(portS3), c.addr(portSMTP), c.addr(portChain)
	return []*Process{
		c.newProcess("s3", roleOutside, c.S3Endpoint(), c.Bin.Versitygw,
			[]string{"--port", s3Addr, "--access", S3AccessKey, "--secret", S3SecretKey, "--region", S3Region,
				"--quiet", "posix", filepath.Join(c.Dir, "s3")},
			// The server must not pick up credentials or settings from the developer's environment.
			[]string{"HOME=" + c.Dir}, httpAnswers(c.S3Endpoint())),
		c.newProcess("smtp", roleOutside, smtpAddr, c.Bin.Tool,
			[]string{"serve-smtp", "--addr", smtpAddr, "--journal", c.MailJournal()}, nil, smtpReady(smtpAddr)),
		c.newProcess("chain", roleOutside, c.ChainURL(), c.Bin.Tool,
			[]string{"serve-chain", "--addr", chainAddr, "--data", filepath.Join(c.Dir, "chain")}, nil,
			// geth's JSON-RPC handler answers an empty GET with 200.
			httpOK(c.ChainURL())),
	}
}

// S3Client is a client of the cluster's S3 server with its root credentials.
func (c Config) S3Client() *s3.Client {
	return s3.New(s3.Options{Region: S3Region, BaseEndpoint: aws.String(c.S3Endpoint()), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(S3AccessKey, S3SecretKey, "")})
}

// createBucket creates badged's bucket unless it exists.
func (c *Cluster) createBucket(ctx context.Context) error {
	_, err := c.S3Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(S3Bucket)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		return fmt.Errorf("create bucket %s: %w", S3Bucket, err)
	}
	return nil
}

var probeClient = &http.Client{Timeout: 2 * time.Second}

// httpOK is ready when url answers 200.
func httpOK(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		status, err := get(ctx, url)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("GET %s: %d", url, status)
		}
		return err
	}
}

// httpAnswers is ready when url answers at all (S3 answers an anonymous request 403).
func httpAnswers(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := get(ctx, url)
		return err
	}
}

func get(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	res, err := probeClient.Do(req)
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}

// tcpReady is ready when addr accepts a connection (Temporal's history, matching and worker services).
func tcpReady(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		d := net.Dialer{Timeout: time.Second}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.Close()
	}
}

// smtpReady is ready when the server greets with 220.
func smtpReady(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		d := net.Dialer{Timeout: time.Second}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil {
			return err
		}
		if !strings.HasPrefix(line, "220") {
			return fmt.Errorf("greeting %q", strings.TrimSpace(line))
		}
		_, _ = conn.Write([]byte("QUIT\r\n"))
		return nil
	}
}
