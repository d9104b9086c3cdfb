package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/baking"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/workflows"
)

// resolver is a key resolver over the issuer document the service serves at GET /issuers/{org}.
func (s *stack) resolver(tb testing.TB, org string) credential.Resolver {
	tb.Helper()
	r := s.get(tb, "/issuers/"+org, "", "")
	require.Equal(tb, 200, r.Status, "issuer document: %s", r.Raw)
	res, err := credential.NewStaticResolver(r.Raw)
	require.NoError(tb, err)
	return res
}

// mustVerifiedCredential fetches the credential at url and verifies its proof against the issuer's document.
func (s *stack) mustVerifiedCredential(tb testing.TB, url string, res credential.Resolver, org string) []byte {
	tb.Helper()
	r := s.get(tb, url, "", "")
	require.Equal(tb, 200, r.Status, "credential %s: %s", url, r.Raw)
	out, err := credential.Verify(context.Background(), r.Raw, res)
	require.NoError(tb, err, "credential %s does not verify", url)
	require.Equal(tb, s.BaseURL+"/issuers/"+org, out.Issuer)
	return r.Raw
}

// requireBakedImage checks that the image at url carries exactly the credential bytes.
func (s *stack) requireBakedImage(tb testing.TB, url string, cred []byte) {
	tb.Helper()
	r := s.get(tb, url, "", "")
	require.Equal(tb, 200, r.Status, "baked image %s", url)
	got, err := baking.Unbake(r.Raw)
	require.NoError(tb, err)
	require.True(tb, bytes.Equal(cred, got), "the baked credential differs from the served credential")
}

// verifyPage fetches the verification page of an assertion and checks it runs no script.
func (s *stack) verifyPage(tb testing.TB, assertion string) string {
	tb.Helper()
	r := s.get(tb, "/verify/"+assertion, "", "text/html")
	require.Equal(tb, 200, r.Status, "%s", r.Raw)
	require.Contains(tb, r.Header.Get("Content-Type"), "text/html")
	csp := r.Header.Get("Content-Security-Policy")
	require.Contains(tb, csp, "default-src 'none'")
	require.NotContains(tb, csp, "script-src")
	require.NotContains(tb, strings.ToLower(string(r.Raw)), "<script")
	return string(r.Raw)
}

// messagesByID indexes the accepted messages by Message-ID (angle brackets stripped) and fails on a repeat.
func messagesByID(tb testing.TB, msgs []smtptest.Message) map[string]smtptest.Message {
	tb.Helper()
	out := map[string]smtptest.Message{}
	for _, m := range msgs {
		id := strings.Trim(m.MessageID, "<>")
		_, dup := out[id]
		require.False(tb, dup, "message %s delivered twice", id)
		out[id] = m
	}
	return out
}

// messageID is the Message-ID the service sends for an assertion.
func messageID(assertion string) string { return notify.MessageID(assertion, mailDomain) }

// senderNonce is the dev chain sender's transaction count: the number of transactions it ever had mined.
func (s *stack) senderNonce(tb testing.TB) uint64 {
	tb.Helper()
	return nonceAt(tb, s.Chain.URL(), s.Chain.Address())
}

// nonceAt is sender's transaction count on the node at url: the number of its transactions mined.
func nonceAt(tb testing.TB, url string, sender common.Address) uint64 {
	tb.Helper()
	c, err := ethclient.Dial(url)
	require.NoError(tb, err)
	defer c.Close()
	n, err := c.NonceAt(context.Background(), sender, nil)
	require.NoError(tb, err)
	return n
}

// statusListOf returns the statusListCredential URL of a credential.
func statusListOf(tb testing.TB, cred []byte) string {
	tb.Helper()
	var doc struct {
		CredentialStatus struct {
			StatusListCredential string `json:"statusListCredential"`
		} `json:"credentialStatus"`
	}
	require.NoError(tb, json.Unmarshal(cred, &doc))
	require.NotEmpty(tb, doc.CredentialStatus.StatusListCredential, "credential has no credentialStatus")
	return doc.CredentialStatus.StatusListCredential
}

// credentialVerify verifies any signed document (a credential or a status list credential).
func credentialVerify(doc []byte, res credential.Resolver) (*credential.VerifyResult, error) {
	return credential.Verify(context.Background(), doc, res)
}

// credentialCheckStatus reads the revocation bit of cred in the status list credential list.
func credentialCheckStatus(cred, list []byte) (bool, error) {
	return credential.CheckStatus(cred, list)
}

// runExpiry runs the expiry job as the schedule would, through Temporal, and returns how many it expired.
func (s *stack) runExpiry(tb testing.TB) int64 {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "e2e-expire-" + uuid.NewString(),
		TaskQueue: workflows.TaskQueue}, workflows.ExpireAssertions)
	require.NoError(tb, err)
	var n int64
	require.NoError(tb, run.Get(ctx, &n))
	return n
}

// requireAnchorRoots checks every anchor transaction recorded: mined successfully, and carrying the Merkle root of
// exactly the credentials assigned to it, in leaf order. Nothing is anchored twice or left out of its tree.
func requireAnchorRoots(tb testing.TB, d *db.DB, rpcURL string) {
	tb.Helper()
	ctx := context.Background()
	ec, err := ethclient.Dial(rpcURL)
	require.NoError(tb, err)
	defer ec.Close()
	rows, err := d.Pool.Query(ctx, "SELECT anchor_key, tx_hash FROM chain_txs WHERE anchor_key LIKE 'anchor/%'")
	require.NoError(tb, err)
	txs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Key, Hash string }])
	require.NoError(tb, err)
	for _, tx := range txs {
		members, err := d.ListAnchorMembers(ctx, tx.Key)
		require.NoError(tb, err)
		require.NotEmpty(tb, members, "anchor %s has no credentials", tx.Key)
		digests := make([][32]byte, len(members))
		for i, m := range members {
			copy(digests[i][:], m.CredentialSha256)
		}
		// The issuance log checkpoints signed with the batch are leaves too (internal/issuancelog).
		roots, err := d.ListIssuanceLogAnchorRoots(ctx, tx.Key)
		require.NoError(tb, err)
		for _, r := range roots {
			digests = append(digests, [32]byte(r))
		}
		slices.SortFunc(digests, func(x, y [32]byte) int { return bytes.Compare(x[:], y[:]) })
		root, _ := chain.BuildMerkle(digests)
		sent, _, err := ec.TransactionByHash(ctx, common.HexToHash(tx.Hash))
		require.NoError(tb, err, "transaction %s", tx.Hash)
		require.Equal(tb, root[:], sent.Data(), "anchor %s carries the root of its credentials", tx.Key)
		rec, err := ec.TransactionReceipt(ctx, common.HexToHash(tx.Hash))
		require.NoError(tb, err, "receipt of %s", tx.Hash)
		require.Equal(tb, types.ReceiptStatusSuccessful, rec.Status, "tx %s", tx.Hash)
	}
}
