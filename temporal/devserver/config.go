package devserver

import (
	"net"
	"strconv"
	"time"

	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"

	"github.com/badged/badged/internal/freeport"
)

const clusterName = "active"

// ports are the gRPC ports of the four services; only the frontend's is
// meant for clients.
type ports struct {
	frontend, history, matching, worker int
}

// pickPorts chooses the services' ports on host: the frontend's is given (0: any free one), the others are free
// ones, all distinct and below the kernel's ephemeral range (internal/freeport).
func pickPorts(host string, frontend int) (ports, error) {
	n := 3
	if frontend == 0 {
		n++
	}
	free, err := freeport.Pick(host, n)
	if err != nil {
		return ports{}, err
	}
	if frontend == 0 {
		frontend, free = free[3], free[:3]
	}
	return ports{frontend: frontend, history: free[0], matching: free[1], worker: free[2]}, nil
}

// serverConfig is the static config of a single-host cluster with one
// history shard: enough for development and tests, and the shard count can
// never change for an existing database.
func serverConfig(host string, p ports, store persistenceStores) *config.Config {
	frontendAddr := net.JoinHostPort(host, strconv.Itoa(p.frontend))
	service := func(port int) config.Service {
		return config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: host}}
	}
	var c config.Config
	c.Global.Membership = config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: host}
	c.Persistence = config.Persistence{
		DefaultStore:     store.defaultName,
		VisibilityStore:  store.visibilityName,
		NumHistoryShards: 1,
		DataStores:       store.stores,
	}
	c.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			clusterName: {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontendAddr},
		},
	}
	c.DCRedirectionPolicy.Policy = "noop"
	c.Services = map[string]config.Service{
		"frontend": service(p.frontend),
		"history":  service(p.history),
		"matching": service(p.matching),
		"worker":   service(p.worker),
	}
	c.Archival.History.State = "disabled"
	c.Archival.Visibility.State = "disabled"
	c.NamespaceDefaults.Archival.History.State = "disabled"
	c.NamespaceDefaults.Archival.Visibility.State = "disabled"
	c.PublicClient.HostPort = frontendAddr
	return &c
}

// dynamicConfig holds our defaults. History size and count limits are left
// at the server defaults on purpose, so that dev and tests hit the same
// limits as a production cluster.
func dynamicConfig(overrides map[string]any) dynamicconfig.StaticClient {
	dc := dynamicconfig.StaticClient{
		// Search attributes registered at start must be usable by the very
		// next visibility query and StartWorkflow.
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): true,
		// Benchmarks start hundreds of workflows per second from one client.
		dynamicconfig.FrontendRPS.Key():                                  10000,
		dynamicconfig.FrontendMaxNamespaceRPSPerInstance.Key():           10000,
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 1000,
		dynamicconfig.FrontendNamespaceReplicationInducingAPIsRPS.Key():  1000,
		// One partition: with a single matching host, more partitions only
		// add forwarding hops and polls that find nothing.
		dynamicconfig.MatchingNumTaskqueueReadPartitions.Key():  1,
		dynamicconfig.MatchingNumTaskqueueWritePartitions.Key(): 1,
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key():        8192,
	}
	for k, v := range overrides {
		dc[dynamicconfig.MakeKey(k)] = v
	}
	return dc
}
