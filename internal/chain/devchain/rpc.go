package devchain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// rpcServer serves the eth and net JSON-RPC namespaces over HTTP. It is ours rather than the node's so that every
// call can hold the chain's gate and eth_sendRawTransaction can journal what it accepts.
type rpcServer struct {
	http *http.Server
	rpc  *rpc.Server
	url  string
	done chan struct{}
}

// serve serves JSON-RPC on ln (Start closes ln when serve fails).
func (c *Chain) serve(ln net.Listener) (*rpcServer, error) {
	srv := rpc.NewServer()
	for _, api := range c.eth.APIs() {
		if api.Namespace == "eth" || api.Namespace == "net" {
			if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
				return nil, fmt.Errorf("register %s api: %w", api.Namespace, err)
			}
		}
	}
	// Registered last, so its method replaces the node's eth_sendRawTransaction.
	if err := srv.RegisterName("eth", &rawTxAPI{c: c}); err != nil {
		return nil, fmt.Errorf("register eth_sendRawTransaction: %w", err)
	}
	s := &rpcServer{rpc: srv, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
	s.http = &http.Server{Handler: http.HandlerFunc(c.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// handle serves one HTTP request (one call or a batch) under the gate.
func (c *Chain) handle(w http.ResponseWriter, r *http.Request) {
	c.gate.RLock()
	defer c.gate.RUnlock()
	if c.broken != nil {
		http.Error(w, "dev chain journal failed: "+c.broken.Error(), http.StatusServiceUnavailable)
		return
	}
	c.rpc.rpc.ServeHTTP(w, r)
}

func (s *rpcServer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	<-s.done
	s.rpc.Stop()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// rawTxAPI is eth_sendRawTransaction with a journal: a transaction the pool accepts is journaled before the call
// answers, so a crash cannot lose a transaction its sender was told about.
type rawTxAPI struct{ c *Chain }

// SendRawTransaction adds a signed transaction to the pool. Its errors are the pool's ("already known", "nonce too
// low: ..."), as the node's own method returns them.
func (api *rawTxAPI) SendRawTransaction(_ context.Context, input hexutil.Bytes) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(input); err != nil {
		return common.Hash{}, err
	}
	if err := api.c.eth.TxPool().Add([]*types.Transaction{tx}, false)[0]; err != nil {
		return common.Hash{}, err
	}
	if api.c.journal != nil {
		// The caller holds the gate shared: no seal runs between the pool accepting and the journal recording.
		if err := api.c.journal.append(recTx, input); err != nil {
			return common.Hash{}, err
		}
	}
	return tx.Hash(), nil
}
