// Package s3test runs a real S3-compatible server (versitygw over a temporary directory) for tests.
//
// It imports nothing of the module; only tests and cmd/badged-cluster import it.
package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/badged/badged/internal/syncbuf"
)

// Binary is the server executable that Start looks for on PATH and in $(go env GOPATH)/bin.
const Binary = "versitygw"

// InstallHint is the command that installs Binary; the Makefile's tools target runs it.
const InstallHint = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Server is a running versitygw process with one bucket.
type Server struct {
	Endpoint  string // "http://127.0.0.1:<port>"
	Region    string
	Bucket    string
	AccessKey string
	SecretKey string
	Dir       string // the posix backend's root; each bucket is a subdirectory

	cmd      *exec.Cmd
	output   *syncbuf.Buffer // the server's output, from two writers
	exited   chan struct{}
	stopOnce sync.Once
}

// Start starts the server on a free loopback port over a temporary directory, waits until it answers, creates the
// bucket "badged-test" and stops the server when the test ends. It fails the test when the binary is missing.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := FindBinary()
	if err != nil {
		tb.Fatalf("s3test: %v: run make tools (%s)", err, InstallHint)
	}
	dir := tb.TempDir()
	var lastErr error
	// A free port can be taken between choosing it and the server binding it; try a few.
	for range 3 {
		s, err := start(bin, dir)
		if err != nil {
			lastErr = err
			continue
		}
		tb.Cleanup(s.Stop)
		if err := s.createBucket(); err != nil {
			tb.Fatalf("s3test: create bucket: %v\nserver output:\n%s", err, s.output.String())
		}
		return s
	}
	tb.Fatalf("s3test: start %s: %v", bin, lastErr)
	return nil
}

func start(bin, dir string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{
		Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", port),
		Region:    "us-east-1",
		Bucket:    "badged-test",
		AccessKey: "badgedtestroot",
		SecretKey: "badgedtestsecret0123456789",
		Dir:       dir,
		output:    &syncbuf.Buffer{},
		exited:    make(chan struct{}),
	}
	s.cmd = exec.Command(bin,
		"--port", fmt.Sprintf("127.0.0.1:%d", port),
		"--access", s.AccessKey, "--secret", s.SecretKey, "--region", s.Region,
		"--quiet",
		"posix", dir)
	// The server must not pick up credentials or settings from the developer's environment.
	s.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	s.cmd.Stdout = s.output
	s.cmd.Stderr = s.output
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(15 * time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w\nserver output:\n%s", err, s.output.String())
	}
	return s, nil
}

// Stop ends the server and waits for it to exit; calling it again does nothing. A test calls it to see how a store
// behaves when S3 is down.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
}

// Client returns an SDK client with the root credentials, for tests that inspect the bucket directly.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       s.Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}

func (s *Server) createBucket() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)})
	return err
}

// waitReady polls until the server answers HTTP at all; an anonymous request gets 403, which is enough.
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return errors.New("server exited before it was ready")
		default:
		}
		resp, err := client.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server not ready after %s", limit)
}

// FindBinary returns the path of the S3 server executable: on PATH or in $(go env GOPATH)/bin, where `make tools`
// installs it.
func FindBinary() (string, error) {
	if p, err := exec.LookPath(Binary); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		out, err := exec.Command("go", "env", "GOPATH").Output()
		if err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", Binary)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in $(go env GOPATH)/bin", Binary)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
