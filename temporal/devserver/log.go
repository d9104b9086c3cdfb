package devserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// serverLogger adapts slog to the server's log.Logger. The server logs
// dozens of info lines per start and per shard movement, so only warnings and
// errors pass.
type serverLogger struct {
	l *slog.Logger
	// quiet is set when Stop begins: shutdown cancels every in-flight poll
	// and each one logs an error that means nothing.
	quiet *atomic.Bool
	// fatal keeps the first Fatal the server logs (shared by every logger With derives).
	fatal *fatalLog
}

var (
	_ log.Logger     = serverLogger{}
	_ log.WithLogger = serverLogger{}
)

const minServerLevel = slog.LevelWarn

// nexusPortWarning is logged at every start because the embedded server leaves the frontend HTTP port off on
// purpose (nothing here uses Nexus); it would only teach operators to ignore warnings.
const nexusPortWarning = "HTTP API port has not been set."

func (s serverLogger) log(level slog.Level, msg string, tags []tag.Tag) {
	if level < minServerLevel || s.quiet.Load() || !s.l.Enabled(context.Background(), level) ||
		strings.HasPrefix(msg, nexusPortWarning) {
		return
	}
	attrs := make([]slog.Attr, 0, len(tags))
	for _, t := range tags {
		attrs = append(attrs, slog.Any(t.Key(), t.Value()))
	}
	s.l.LogAttrs(context.Background(), level, msg, attrs...)
}

func (s serverLogger) Debug(msg string, tags ...tag.Tag) { s.log(slog.LevelDebug, msg, tags) }
func (s serverLogger) Info(msg string, tags ...tag.Tag)  { s.log(slog.LevelInfo, msg, tags) }
func (s serverLogger) Warn(msg string, tags ...tag.Tag)  { s.log(slog.LevelWarn, msg, tags) }
func (s serverLogger) Error(msg string, tags ...tag.Tag) { s.log(slog.LevelError, msg, tags) }

// DPanic, Panic and Fatal are logged as errors: an embedded server must not
// take the host process down. Fatal is also kept, for Start to return.
func (s serverLogger) DPanic(msg string, tags ...tag.Tag) { s.log(slog.LevelError, msg, tags) }
func (s serverLogger) Panic(msg string, tags ...tag.Tag)  { s.log(slog.LevelError, msg, tags) }
func (s serverLogger) Fatal(msg string, tags ...tag.Tag) {
	s.log(slog.LevelError, msg, tags)
	s.fatal.record(fatalError(msg, tags))
}

// fatalLog keeps the first fatal error the server logged. The server logs as fatal what it cannot go on without,
// expecting the logger to exit the process: a gRPC listener it could not bind in NewServer, which it then serves
// as nil (a panic in Start). Start returns the kept error instead.
type fatalLog struct {
	mu  sync.Mutex
	err error
}

func (f *fatalLog) record(err error) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *fatalLog) get() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// fatalError turns a fatal log record into an error: a *ListenError for a listener the server could not bind
// (its tags name the service, the address and the listener's error), else the message and its tags.
func fatalError(msg string, tags []tag.Tag) error {
	var service, addr string
	var cause error
	var rest []string
	for _, t := range tags {
		switch t.Key() {
		case "service":
			service = fmt.Sprint(t.Value())
		case "address":
			addr = fmt.Sprint(t.Value())
		case "error":
			if z, ok := t.(tag.ZapTag); ok {
				cause, _ = z.Field().Interface.(error)
			}
		default:
			rest = append(rest, fmt.Sprintf("%s=%v", t.Key(), t.Value()))
		}
	}
	var op *net.OpError
	if errors.As(cause, &op) && op.Op == "listen" && service != "" {
		return &ListenError{Service: service, Addr: addr, Err: cause}
	}
	if service != "" {
		rest = append(rest, "service="+service)
	}
	if addr != "" {
		rest = append(rest, "address="+addr)
	}
	if cause != nil {
		rest = append(rest, "error="+cause.Error())
	}
	if len(rest) == 0 {
		return errors.New(msg)
	}
	return fmt.Errorf("%s (%s)", msg, strings.Join(rest, ", "))
}

func (s serverLogger) With(tags ...tag.Tag) log.Logger {
	args := make([]any, 0, len(tags))
	for _, t := range tags {
		args = append(args, slog.Any(t.Key(), t.Value()))
	}
	return serverLogger{l: s.l.With(args...), quiet: s.quiet, fatal: s.fatal}
}
