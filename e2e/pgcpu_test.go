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

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat: 100 on every Linux Go supports here.
const clockTicks = 100

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
		if cpu, ok := procCPU(pid); ok {
			out[pid] = cpu
		}
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

// procCPU reads utime + stime of a process from /proc/<pid>/stat; false when it cannot be read (another user's
// Postgres on a remote host, a backend that just ended).
func procCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces; the fields after its closing parenthesis are space-separated,
	// utime and stime being the 14th and 15th of the line (the 12th and 13th after the name).
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, true
}
