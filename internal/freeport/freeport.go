// Package freeport picks TCP ports that are free now, for servers that bind them a moment later (the embedded
// Temporal's services, the test cluster's processes). It picks below 32768, outside the kernel's ephemeral range:
// a port the kernel hands out for "port 0" comes from the pool every outgoing connection takes its source port
// from, so between the probe's close and the server's bind any connection on the machine could take it (it
// happened: the embedded Temporal frontend got no listener and the test process panicked in gRPC's Serve). Below
// the range only another explicit bind can. Temporal also keeps service ports in a SMALLINT column
// (cluster_membership), which the ephemeral range overflows.
//
// Imports nothing of the module.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
)

// lo and hi bound the ports picked: [lo, hi), below Linux's default ephemeral range (32768–60999).
const lo, hi = 20000, 32768

// Pick returns n distinct ports on host that were free when it returned. They are tried from a random start, so
// concurrent pickers rarely meet; every probe stays open until all n are chosen, so no two are the same.
func Pick(host string, n int) ([]int, error) {
	var open []net.Listener
	defer func() {
		for _, l := range open {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	next := lo + rand.IntN(hi-lo)
	for tries := 0; len(ports) < n; tries++ {
		if tries == hi-lo {
			return nil, fmt.Errorf("no %d free ports in %d..%d on %s", n, lo, hi-1, host)
		}
		port := next
		next = lo + (next-lo+1)%(hi-lo)
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		open = append(open, l)
		ports = append(ports, port)
	}
	return ports, nil
}
