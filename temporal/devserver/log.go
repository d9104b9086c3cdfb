package devserver

import (
	"context"
	"log/slog"
	"strings"
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
// take the host process down.
func (s serverLogger) DPanic(msg string, tags ...tag.Tag) { s.log(slog.LevelError, msg, tags) }
func (s serverLogger) Panic(msg string, tags ...tag.Tag)  { s.log(slog.LevelError, msg, tags) }
func (s serverLogger) Fatal(msg string, tags ...tag.Tag)  { s.log(slog.LevelError, msg, tags) }

func (s serverLogger) With(tags ...tag.Tag) log.Logger {
	args := make([]any, 0, len(tags))
	for _, t := range tags {
		args = append(args, slog.Any(t.Key(), t.Value()))
	}
	return serverLogger{l: s.l.With(args...), quiet: s.quiet}
}
