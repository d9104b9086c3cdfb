package main

import (
	"bytes"
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
	"github.com/badged/badged/internal/credential"
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
		in.Status = &credential.StatusEntry{ListCredential: ai.listURL, Index: i} // as badged issues them
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
		requireVerdict(t, "VALID", out, err)
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
		requireVerdict(t, "VALID", out, err)
		require.Contains(t, out, "anchor: ok (receipt BadgedAnchorReceipt v1 from the given file)")
		require.Contains(t, out, "anchor sender: ok (")
	})
	t.Run("without rpc the chain is not asked", func(t *testing.T) {
		out, err := runCred(t, "verify", ai.url(0))
		requireVerdict(t, "VALID (not checked: anchor transaction, anchor sender)", out, err)
		require.Contains(t, out, "anchor proof: ok (")
		require.Contains(t, out, "anchor transaction: not checked (give --rpc URL of chain eip155:1337")
	})
	t.Run("tampered credential bytes", func(t *testing.T) {
		// A trailing newline leaves the signature valid (it covers the canonical form) but not the anchored bytes.
		tampered := append(append([]byte{}, ai.creds[1]...), '\n')
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, writeTemp(t, "c.json", tampered))
		requireVerdict(t, "INVALID (anchor digest: failed)", out, err)
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
		requireVerdict(t, "INVALID (anchor proof: failed)", out, err)
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
		requireVerdict(t, "INVALID (anchor transaction: failed)", out, err)
		require.Contains(t, out, "anchor proof: ok (")
		require.Contains(t, out, "anchor transaction: failed (")
		require.Contains(t, out, chain.ErrDataMismatch.Error())
	})
	t.Run("wrong block", func(t *testing.T) {
		bad := r
		bad.Chain.BlockNumber++
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, "--receipt", mustJSONFile(t, bad), ai.url(1))
		requireVerdict(t, "INVALID (anchor transaction: failed)", out, err)
		require.Contains(t, out, fmt.Sprintf("anchor transaction: failed (transaction %s is in block %d, the receipt says %d)",
			r.Chain.TransactionHash, r.Chain.BlockNumber, r.Chain.BlockNumber+1))
	})
	t.Run("receipt of another credential", func(t *testing.T) {
		out, err := runCred(t, "verify", "--receipt", mustJSONFile(t, ai.receipts[0]), ai.url(1))
		requireVerdict(t, "INVALID (anchor: failed)", out, err)
		require.Contains(t, out, "anchor: failed (the receipt from the given file is for "+ai.url(0))
	})
	t.Run("wrong sender", func(t *testing.T) {
		ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: "0x000000000000000000000000000000000000dEaD"})
		t.Cleanup(func() { ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: ai.sender}) })
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, ai.url(1))
		requireVerdict(t, "INVALID (anchor sender: failed)", out, err)
		require.Contains(t, out, "anchor transaction: ok (")
		require.Contains(t, out, "anchor sender: failed (the transaction was sent by "+ai.sender+", which the issuer's controller document "+ai.id+" does not name)")
	})
	t.Run("wrong chain in the controller document", func(t *testing.T) {
		ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: 1, Address: ai.sender})
		t.Cleanup(func() { ai.setAnchorAccount(t, issuer.AnchorAccount{ChainID: devchain.ChainID, Address: ai.sender}) })
		out, err := runCred(t, "verify", "--rpc", ai.chainURL, ai.url(1))
		requireVerdict(t, "INVALID (anchor sender: failed)", out, err)
		require.Contains(t, out, "anchor sender: failed (")
	})
	t.Run("no receipt served", func(t *testing.T) {
		ai.mu.Lock()
		delete(ai.files, "/credentials/2/receipt")
		ai.mu.Unlock()
		out, err := runCred(t, "verify", ai.url(2))
		requireVerdict(t, "VALID", out, err)
		require.Contains(t, out, "anchor: none (the issuer serves no anchor receipt for this credential: "+ai.url(2)+"/receipt answers 404)")
		// Asked to check the anchor on chain, it cannot say which transaction: not a forgery, not checked either.
		out, err = runCred(t, "verify", "--rpc", ai.chainURL, ai.url(2))
		requireVerdict(t, "COULD NOT CHECK (anchor)", out, err)
		require.Contains(t, out, "anchor: could not check (--rpc needs the receipt: the issuer serves no anchor receipt")
	})
}

// TestCredentialVerify_Outcomes: the three verdicts and their exit statuses on credentials issued as badged issues
// them (a status list entry, an anchor receipt served at the credential's id, the issuer's controller document
// naming the anchoring account). INVALID (1) only when a check proves the credential bad; COULD NOT CHECK (3) when
// a check it needs could not be done; VALID (0) naming what the options left out. --offline never asks anyone.
func TestCredentialVerify_Outcomes(t *testing.T) {
	ai := newAnchoredIssuer(t)
	ctrl := writeTemp(t, "ctrl.json", ai.controller)
	receipt := mustJSONFile(t, ai.receipts[0])
	file := writeTemp(t, "c.json", ai.creds[0])
	var doc map[string]any
	require.NoError(t, json.Unmarshal(ai.creds[0], &doc))
	doc["name"] = "Go (forged)"
	forged, err := json.Marshal(doc)
	require.NoError(t, err)
	// The issuer's document without the key that signed: a trusted copy that does not list it.
	other := newFakeIssuer(t)
	rotated := bytes.ReplaceAll(other.controller, []byte(other.id), []byte(ai.id))
	rpcDown := "http://" + closedAddr(t)

	tests := []struct {
		name    string
		args    []string
		revoked bool
		verdict string
		want    []string
		offline bool // no request may reach the issuer
	}{
		{name: "valid, online", args: []string{"--rpc", ai.chainURL, ai.url(0)}, verdict: "VALID",
			want: []string{"signature: ok", "status: ok (not revoked: bit 0 of ", "anchor sender: ok ("}},
		{name: "tampered", args: []string{"--rpc", ai.chainURL, writeTemp(t, "forged.json", forged)},
			verdict: "INVALID (signature: failed; anchor digest: failed)",
			want:    []string{"signature: failed (invalid proof: signature does not verify)"}},
		{name: "revoked", args: []string{ai.url(0)}, revoked: true, verdict: "INVALID (status: revoked)",
			want: []string{"status: revoked (bit 0 of "}},
		{name: "offline with the controller document", args: []string{"--offline", "--controller", ctrl, file}, offline: true,
			verdict: "VALID (not checked: status, anchor)",
			want: []string{"signature: ok (eddsa-rdfc-2022 by " + ai.vm, "expiry: ok (",
				"status: not checked (offline: the status list " + ai.listURL + " is not fetched)",
				"anchor: not checked (offline: give the receipt with --receipt)"}},
		{name: "offline with the controller document and the receipt", args: []string{"--offline", "--controller", ctrl, "--receipt", receipt, file},
			offline: true, verdict: "VALID (not checked: status, anchor transaction, anchor sender)",
			want: []string{"signature: ok", "anchor digest: ok (", "anchor proof: ok (", "anchor transaction: not checked (give --rpc URL"}},
		{name: "offline without the controller document", args: []string{"--offline", file}, offline: true,
			verdict: "COULD NOT CHECK (signature; not checked: status, anchor)",
			want: []string{"signature: could not check (resolve " + ai.vm + ": offline: the issuer's key is in its controller document " +
				ai.id + ", which is not fetched offline; give it with --controller FILE)", "expiry: ok ("}},
		{name: "offline, a controller document without the key", args: []string{"--offline", "--controller", writeTemp(t, "rotated.json", rotated), file},
			offline: true, verdict: "INVALID (signature: failed)",
			want: []string{"signature: failed (resolve " + ai.vm + ": verification method not found: the given controller document " + ai.id +
				" does not list " + ai.vm + " as an assertion key)"}},
		{name: "rpc unreachable", args: []string{"--rpc", rpcDown, ai.url(0)}, verdict: "COULD NOT CHECK (anchor transaction, anchor sender)",
			want: []string{"signature: ok", "status: ok (", "anchor proof: ok (", "anchor transaction: could not check (ask the node at " + rpcDown + ": ",
				"connection refused", "anchor sender: could not check (needs the transaction, which could not be checked)"}},
		{name: "revoked, rpc unreachable", args: []string{"--rpc", rpcDown, ai.url(0)}, revoked: true, verdict: "INVALID (status: revoked)",
			want: []string{"anchor transaction: could not check ("}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.revoked {
				ai.setRevoked(t, 0)
				t.Cleanup(func() { ai.setRevoked(t, -1) })
			}
			requests := ai.requests()
			out, err := runCred(t, append([]string{"verify"}, tt.args...)...)
			requireVerdict(t, tt.verdict, out, err)
			for _, w := range tt.want {
				require.Contains(t, out, w)
			}
			if tt.offline {
				require.Equal(t, requests, ai.requests(), "--offline asked the issuer")
			}
		})
	}
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
