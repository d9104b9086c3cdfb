package devserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	uiserver "github.com/temporalio/ui-server/v2/server"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/primitives"
	"go.temporal.io/server/temporal"

	"github.com/badged/badged/temporal/setup"
)

// Server is a running embedded Temporal server. Stop it when done.
type Server struct {
	srv          temporal.Server
	ui           *uiserver.Server
	frontendAddr string
	uiAddr       string
	namespace    string
	log          *slog.Logger
	quiet        *atomic.Bool
	stopOnce     sync.Once
	stopErr      error
}

// Start boots the server, registers Options.Namespace and its search
// attributes, and, when Options.UIAddr is set, the Web UI. It returns when
// clients can run workflows in the namespace. ctx bounds the start only.
func Start(ctx context.Context, o Options) (*Server, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	logger := serverLogger{l: o.Logger, quiet: new(atomic.Bool), fatal: new(fatalLog)}

	host, frontendPort, err := splitAddr(o.FrontendAddr)
	if err != nil {
		return nil, fmt.Errorf("devserver: frontend: %w", err)
	}
	if frontendPort != 0 {
		// Before the database is opened: the usual owner of a taken frontend port is another server on the same Dir.
		if err := checkFree("frontend", host, frontendPort); err != nil {
			return nil, fmt.Errorf("devserver: %w", err)
		}
	}
	p, err := pickPorts(host, frontendPort)
	if err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	return boot(ctx, o, logger, host, p)
}

// boot starts the server on the ports p of host.
func boot(ctx context.Context, o Options, logger serverLogger, host string, p ports) (*Server, error) {
	stores, err := preparePersistence(o, logger)
	if err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	if err := createNamespace(stores.main, o.Namespace, o.SearchAttributes); err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}

	cfg := serverConfig(host, p, stores)
	srv, err := temporal.NewServer(
		temporal.WithConfig(cfg),
		temporal.ForServices(temporal.DefaultServices),
		// Static hosts skip ringpop membership: faster start, no gossip port.
		temporal.WithStaticHosts(staticHosts(host, p)),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorization.NewNoopAuthorizer()),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper {
			return authorization.NewNoopClaimMapper()
		}),
		temporal.WithDynamicConfigClient(dynamicConfig(o.DynamicConfig)),
	)
	if err != nil {
		return nil, fmt.Errorf("devserver: new server: %w", err)
	}
	// A listener NewServer could not bind (a port taken since it was probed or picked) was logged as fatal and left
	// nil: Start would serve it and panic in a goroutine. Stop releases what the services hold; the listeners they
	// did bind are closed only by serving them, so they stay open until the process, which exits on this error, ends.
	if err := logger.fatal.get(); err != nil {
		logger.quiet.Store(true)
		return nil, errors.Join(fmt.Errorf("devserver: %w", err), srv.Stop())
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("devserver: start server: %w", err)
	}
	s := &Server{
		srv:          srv,
		frontendAddr: cfg.PublicClient.HostPort,
		namespace:    o.Namespace,
		log:          o.Logger,
		quiet:        logger.quiet,
	}
	if err := s.afterStart(ctx, o); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// afterStart registers search attributes through the API and starts the UI.
func (s *Server) afterStart(ctx context.Context, o Options) error {
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  s.frontendAddr,
		Namespace: s.namespace,
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	})
	if err != nil {
		return fmt.Errorf("devserver: dial own frontend: %w", err)
	}
	defer c.Close()
	if err := setup.EnsureSearchAttributes(ctx, c, s.namespace, o.SearchAttributes); err != nil {
		return fmt.Errorf("devserver: %w", err)
	}
	if o.UIAddr == "" {
		return nil
	}
	uiHost, uiPort, err := resolveAddr(o.UIAddr)
	if err != nil {
		return fmt.Errorf("devserver: ui: %w", err)
	}
	ui, err := startUI(ctx, uiHost, uiPort, s.frontendAddr, s.namespace, func(err error) {
		s.log.Error("temporal ui stopped", "error", err)
	})
	if err != nil {
		return fmt.Errorf("devserver: %w", err)
	}
	s.ui = ui
	s.uiAddr = net.JoinHostPort(uiHost, strconv.Itoa(uiPort))
	return nil
}

func staticHosts(host string, p ports) map[primitives.ServiceName]static.Hosts {
	at := func(port int) static.Hosts { return static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(port))) }
	return map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: at(p.frontend),
		primitives.HistoryService:  at(p.history),
		primitives.MatchingService: at(p.matching),
		primitives.WorkerService:   at(p.worker),
	}
}

// FrontendAddr is the host:port SDK clients dial (client.Options.HostPort).
func (s *Server) FrontendAddr() string { return s.frontendAddr }

// Namespace is the namespace registered at start.
func (s *Server) Namespace() string { return s.namespace }

// UIAddr is the host:port of the Web UI, or "" when it is off.
func (s *Server) UIAddr() string { return s.uiAddr }

// Stop shuts down the UI and the server. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.quiet.Store(true)
		if s.ui != nil {
			s.ui.Stop()
		}
		if err := s.srv.Stop(); err != nil {
			s.stopErr = fmt.Errorf("devserver: stop: %w", err)
		}
	})
	return s.stopErr
}
