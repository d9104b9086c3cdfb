package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/baking"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/issuer"
)

// anchoredIssuer is a fake issuer whose three credentials are anchored in one Merkle batch on a real dev chain,
// serving each credential and its receipt as badged does.
type anchoredIssuer struct {
	*fakeIssuer
	chainURL string
	sender   string
	creds    [][]byte
	receipts []chain.Receipt
}

func newAnchoredIssuer(t *testing.T) *anchoredIssuer {
	t.Helper()
	c, err := devchain.Start(devchain.Config{BlockInterval: 10 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	a, err := chain.New(chain.Config{RPCURL: c.URL(), PrivateKey: c.PrivateKeyHex(), ChainID: devchain.ChainID,
		ReceiptTimeout: 20 * time.Second, PollInterval: 10 * time.Millisecond}, chain.NewMemStore())
	require.NoError(t, err)
	t.Cleanup(a.Close)

	ai := &anchoredIssuer{fakeIssuer: newFakeIssuer(t), chainURL: c.URL(), sender: a.From()}
	ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: a.From()})
	var digests [][32]byte
	for i := range 3 {
		in := buildInput(ai.id, time.Now().Add(-time.Hour), time.Time{})
		in.ID = fmt.Sprintf("%s/credentials/%d", ai.srv.URL, i)
		signed := mustSign(t, in, ai.key, ai.vm)
		ai.creds = append(ai.creds, signed)
		digests = append(digests, sha256.Sum256(signed))
	}
	b, err := a.AnchorBatch(context.Background(), "anchor/test", digests)
	require.NoError(t, err)
	for i, d := range digests {
		r := chain.NewReceipt(chain.ReceiptInput{CredentialID: fmt.Sprintf("%s/credentials/%d", ai.srv.URL, i),
			Digest: d, Proof: b.Proofs[i], Batched: true, ChainID: b.ChainID, TxHash: b.TxHash,
			BlockNumber: b.BlockNumber, From: a.From(), To: a.To()})
		ai.receipts = append(ai.receipts, r)
		body, err := json.Marshal(r)
		require.NoError(t, err)
		ai.files[fmt.Sprintf("/credentials/%d", i)] = ai.creds[i]
		ai.files[fmt.Sprintf("/credentials/%d/receipt", i)] = body
	}
	return ai
}

// setAnchorAccount serves the issuer's controller document naming acct as its anchoring account.
func (ai *anchoredIssuer) setAnchorAccount(t *testing.T, acct issuer.AnchorAccount) {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(ai.controller, &doc))
	doc["verificationMethod"] = doc["verificationMethod"].([]any)[:1] // the Multikey only
	issuer.AddAnchorAccount(doc, ai.id, acct)
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	ai.mu.Lock()
	ai.controller = body
	ai.mu.Unlock()
}

func (ai *anchoredIssuer) url(i int) string { return fmt.Sprintf("%s/credentials/%d", ai.srv.URL, i) }

func TestCredentialVerify_Receipt(t *testing.T) {
	ai := newAnchoredIssuer(t)
	r := ai.receipts[1]

	t.Run("url, receipt found by id, chain checked", func(t *testing.T) {
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, ai.url(1))
		requireVerdict(t, true, out, err)
		require.Contains(t, out, "anchor: ok (receipt BadgedAnchorReceipt v1 from "+ai.url(1)+"/receipt)")
		require.Contains(t, out, "anchor digest: ok (sha256 of the credential bytes is "+r.Digest.Value+")")
		require.Contains(t, out, "anchor proof: ok (leaf "+r.Merkle.Leaf+" and 2 proof steps lead to root "+r.Merkle.Root+")")
		require.Contains(t, out, fmt.Sprintf("anchor transaction: ok (%s succeeded in block %d of chain eip155:%d; its data is %s)",
			r.Chain.TransactionHash, r.Chain.BlockNumber, devchain.ChainID, r.Merkle.Root))
		require.Contains(t, out, "anchor sender: ok ("+ai.sender+", named by the issuer's controller document "+ai.id+")")
	})
	t.Run("baked file and receipt file", func(t *testing.T) {
		baked, _, err := baking.Bake(mustBadgePNG(t), ai.creds[2])
		require.NoError(t, err)
		body, err := json.Marshal(ai.receipts[2])
		require.NoError(t, err)
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, "--receipt", writeTemp(t, "r.json", body), writeTemp(t, "b.png", baked))
		requireVerdict(t, true, out, err)
		require.Contains(t, out, "anchor: ok (receipt BadgedAnchorReceipt v1 from the given file)")
		require.Contains(t, out, "anchor sender: ok (")
	})
	t.Run("without rpc the chain is not asked", func(t *testing.T) {
		out, err := runCred(t, "verify", ai.url(0))
		requireVerdict(t, true, out, err)
		require.Contains(t, out, "anchor proof: ok (")
		require.Contains(t, out, "anchor transaction: not checked (give --rpc URL of chain eip155:1337")
	})
	t.Run("tampered credential bytes", func(t *testing.T) {
		// A trailing newline leaves the signature valid (it covers the canonical form) but not the anchored bytes.
		tampered := append(append([]byte{}, ai.creds[1]...), '\n')
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, writeTemp(t, "c.json", tampered))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "signature: ok")
		require.Contains(t, out, "anchor digest: failed (")
		require.Contains(t, out, chain.ErrDigest.Error())
	})
	t.Run("tampered proof", func(t *testing.T) {
		bad, tree := r, *r.Merkle
		tree.Proof = append(chain.Proof{}, r.Merkle.Proof...)
		tree.Proof[0][0] ^= 1
		bad.Merkle = &tree
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, "--receipt", mustJSONFile(t, bad), ai.url(1))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "anchor proof: failed (")
		require.Contains(t, out, chain.ErrProof.Error())
	})
	t.Run("tampered proof with a matching root", func(t *testing.T) {
		// The receipt is consistent with itself, but the chain holds another root.
		bad := r
		tree := *r.Merkle
		tree.Proof = append(chain.Proof{}, r.Merkle.Proof...)
		tree.Proof[0][0] ^= 1
		var d [32]byte
		copy(d[:], mustHex(t, r.Digest.Value))
		root := tree.Proof.Root(d)
		tree.Root = fmt.Sprintf("0x%x", root)
		bad.Merkle, bad.Chain.Data = &tree, tree.Root
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, "--receipt", mustJSONFile(t, bad), ai.url(1))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "anchor proof: ok (")
		require.Contains(t, out, "anchor transaction: failed (")
		require.Contains(t, out, chain.ErrDataMismatch.Error())
	})
	t.Run("wrong block", func(t *testing.T) {
		bad := r
		bad.Chain.BlockNumber++
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, "--receipt", mustJSONFile(t, bad), ai.url(1))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, fmt.Sprintf("anchor transaction: failed (transaction %s is in block %d, the receipt says %d)",
			r.Chain.TransactionHash, r.Chain.BlockNumber, r.Chain.BlockNumber+1))
	})
	t.Run("receipt of another credential", func(t *testing.T) {
		out, err := runCred(t, "verify", "--receipt", mustJSONFile(t, ai.receipts[0]), ai.url(1))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "anchor: failed (the receipt from the given file is for "+ai.url(0))
	})
	t.Run("wrong sender", func(t *testing.T) {
		ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: "0x000000000000000000000000000000000000dEaD"})
		t.Cleanup(func() { ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: ai.sender}) })
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, ai.url(1))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "anchor transaction: ok (")
		require.Contains(t, out, "anchor sender: failed (the transaction was sent by "+ai.sender+", which the issuer's controller document "+ai.id+" does not name)")
	})
	t.Run("wrong chain in the controller document", func(t *testing.T) {
		ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: 1, Address: ai.sender})
		t.Cleanup(func() { ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: ai.sender}) })
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, ai.url(1))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "anchor sender: failed (")
	})
	t.Run("no receipt served", func(t *testing.T) {
		ai.mu.Lock()
		delete(ai.files, "/credentials/2/receipt")
		ai.mu.Unlock()
		out, err := runCred(t, "verify", ai.url(2))
		requireVerdict(t, true, out, err)
		require.Contains(t, out, "anchor: none (the issuer serves no anchor receipt for this credential: "+ai.url(2)+"/receipt answers 404)")
		out, err = runCred(t, "verify", "--rpc", ai.chainURL, ai.url(2))
		requireVerdict(t, false, out, err)
		require.Contains(t, out, "anchor: failed (")
	})
}

func mustJSONFile(t *testing.T, v any) string {
	t.Helper()
	body, err := json.Marshal(v)
	require.NoError(t, err)
	return writeTemp(t, "receipt.json", body)
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	var b []byte
	_, err := fmt.Sscanf(strings.TrimPrefix(s, "0x"), "%x", &b)
	require.NoError(t, err)
	return b
}
