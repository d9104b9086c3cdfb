package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pgBackendCPU returns the CPU time (user + system) of each Postgres backend now connected to the stack's database,
// by pid, read from /proc: Postgres' share of an issuance is the growth of these between two readings (the API's and
// the worker's pools keep their connections for the run; a backend that ends in between is left out of it).
func (s *stack) pgBackendCPU(tb testing.TB) map[int]time.Duration {
	tb.Helper()
	rows, err := s.DB.Pool.Query(context.Background(),
		"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")
	require.NoError(tb, err)
	defer rows.Close()
	out := map[int]time.Duration{}
	for rows.Next() {
		var pid int
		require.NoError(tb, rows.Scan(&pid))
		out[pid] = procCPU(pid)
	}
	require.NoError(tb, rows.Err())
	return out
}

// pgCPUSince is the CPU the stack's Postgres backends used since the reading before.
func (s *stack) pgCPUSince(tb testing.TB, before map[int]time.Duration) time.Duration {
	tb.Helper()
	var d time.Duration
	for pid, cpu := range s.pgBackendCPU(tb) {
		d += cpu - before[pid]
	}
	return d
}

// clockTick is the unit of utime and stime in /proc/<pid>/stat: USER_HZ, 100 on Linux's every architecture.
const clockTick = 10 * time.Millisecond

// procCPU is a process's user+system time from /proc/<pid>/stat (0 when it is gone); shared by the benchmarks that
// measure processes of their own (scale_cluster_bench_test.go) and Postgres' backends (pgBackendCPU).
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after its closing parenthesis start at state (3).
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(fields[12], 10, 64) // field 15
	return time.Duration(utime+stime) * clockTick
}

// procStatusBytes reads a kB line of /proc/<pid>/status (VmRSS:, VmHWM:) in bytes.
func procStatusBytes(pid int, key string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
