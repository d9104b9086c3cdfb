package wire

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
)

// A process that runs the worker alone has one pool: the worker's is the API's, and closing it is left to the
// caller that opened it.
func TestWorkerDB_AloneSharesThePool(t *testing.T) {
	p := Parts{DB: &db.DB{}}
	d, closeWD, err := p.WorkerDB(context.Background(), "postgres://unused", false)
	require.NoError(t, err)
	require.Same(t, p.DB, d)
	closeWD() // closing p.DB, a zero pool here, would panic: the caller that opened it closes it
}

// The API's dependencies name the parts: its issuer on the API's pool with the shared anchoring account, the
// Temporal starters, the webhook URL policy; a chain gives it a verifier, which close releases.
func TestAPI_NamesTheParts(t *testing.T) {
	account := &issuer.AnchorAccount{ChainID: 1337, Address: "0xabc"}
	p := Parts{DB: &db.DB{}, BaseURL: "https://badges.example", Anchoring: account,
		WebhookURLs: webhook.URLPolicy{AllowHTTP: true}}
	deps, closeAPI, err := p.API()
	require.NoError(t, err)
	defer closeAPI()
	require.Same(t, p.DB, deps.DB)
	require.Same(t, p.DB, deps.Issuer.DB)
	require.Same(t, account, deps.Issuer.Anchoring)
	require.Equal(t, "https://badges.example", deps.PublicBaseURL)
	require.IsType(t, temporal.Starter{}, deps.Issuances)
	require.IsType(t, temporal.Starter{}, deps.Webhooks)
	require.True(t, deps.WebhookURLs.AllowHTTP)
	require.Nil(t, deps.Chain, "no chain, no verifier")

	p.Chain = &chain.Config{RPCURL: "http://127.0.0.1:1"} // http: NewVerifier opens no connection
	deps, closeAPI, err = p.API()
	require.NoError(t, err)
	defer closeAPI()
	require.NotNil(t, deps.Chain)

	p.Chain = &chain.Config{RPCURL: "::"}
	_, _, err = p.API()
	require.ErrorContains(t, err, "chain verifier")
}
