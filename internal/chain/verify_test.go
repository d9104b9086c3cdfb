package chain

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

func TestVerify(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	a := mustAnchorer(t, c.config(), NewMemStore())
	ctx := context.Background()
	digest := digestOf("verified")
	anc, err := a.Anchor(ctx, "k", digest)
	require.NoError(t, err)

	v, err := NewVerifier(c.url)
	require.NoError(t, err)
	t.Cleanup(v.Close)

	tests := []struct {
		name     string
		txHash   string
		digest   [32]byte
		wantCode errcode.Code
		wantErr  error
	}{
		{"ok", anc.TxHash, digest, "", nil},
		{"other digest", anc.TxHash, digestOf("forged"), errcode.BlockchainReceiptInvalid, ErrDataMismatch},
		{"unknown tx", "0x" + fmt.Sprintf("%064x", 42), digest, errcode.BlockchainReceiptInvalid, ErrTxNotFound},
		{"malformed hash", "0x1234", digest, errcode.BlockchainReceiptInvalid, ErrMalformedTx},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(ctx, tt.txHash, tt.digest)
			require.Equal(t, tt.wantCode, errcode.Of(err), "%v", err)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.Equal(t, anc, got)
		})
	}
}

func TestVerify_RevertedAnchor(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	cfg := c.config()
	cfg.To = reverterAddr.Hex()
	store := NewMemStore()
	a := mustAnchorer(t, cfg, store)
	ctx := context.Background()
	digest := digestOf("reverted")
	_, err := a.Anchor(ctx, "k", digest)
	require.Equal(t, errcode.BlockchainTxReverted, errcode.Of(err), "%v", err)

	p, _, err := store.Load(ctx, "k")
	require.NoError(t, err)
	_, err = a.Verify(ctx, p.TxHash, digest)
	require.Equal(t, errcode.BlockchainTxReverted, errcode.Of(err), "%v", err)

	// A retry of a reverted anchor reports the same, without a second transaction.
	_, err = a.Anchor(ctx, "k", digest)
	require.Equal(t, errcode.BlockchainTxReverted, errcode.Of(err), "%v", err)
	require.Equal(t, uint64(1), c.nonce(t, c.from))
}

// A node (or a proxy in front of it) that answers with a receipt for another transaction is caught.
func TestAnchor_ReceiptInvalid(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	hashField := regexp.MustCompile(`"transactionHash":"0x[0-9a-f]{64}"`)
	forged := fmt.Sprintf(`"transactionHash":"0x%064x"`, 7)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp, err := http.Post(c.url, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if bytes.Contains(body, []byte("eth_getTransactionReceipt")) {
			out = hashField.ReplaceAll(out, []byte(forged))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(proxy.Close)

	cfg := c.config()
	cfg.RPCURL = proxy.URL
	a := mustAnchorer(t, cfg, NewMemStore())
	_, err := a.Anchor(context.Background(), "k", digestOf("tampered"))
	require.Equal(t, errcode.BlockchainReceiptInvalid, errcode.Of(err), "%v", err)
	require.Contains(t, err.Error(), "receipt is for tx")
}
