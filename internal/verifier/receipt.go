package verifier

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/errcode"
)

// ErrNoReceipt reports that the issuer serves no anchor receipt for the credential.
var ErrNoReceipt = errors.New("the issuer serves no anchor receipt for this credential")

// ReceiptURL is where a badged issuer serves a credential's anchor receipt: the credential id plus "/receipt".
// It is asked only when the credential id is an http(s) URL on the issuer's own host: the receipt speaks for the
// issuer, and another host's word is not the issuer's.
func ReceiptURL(credentialID, issuerID string) (string, bool) {
	c, err1 := url.Parse(credentialID)
	i, err2 := url.Parse(issuerID)
	if err1 != nil || err2 != nil || (c.Scheme != "https" && c.Scheme != "http") || c.Scheme != i.Scheme ||
		!strings.EqualFold(c.Host, i.Host) || c.RawQuery != "" || c.Fragment != "" {
		return "", false
	}
	return strings.TrimRight(credentialID, "/") + "/receipt", true
}

// checkAnchor finds the credential's anchor receipt and checks it: the digest of the exact credential bytes, the
// Merkle proof to the root, and with an RPC endpoint the transaction on chain and its sender against the issuer's
// controller document. Each step is a check of its own, so the output says which one failed, or could not be done.
func checkAnchor(ctx context.Context, cred []byte, rep *Report, opts Options, fetcher Fetcher) []Check {
	c := Check{Name: "anchor"}
	asked := len(opts.Receipt) > 0 || opts.RPCURL != ""
	if fetcher == nil && len(opts.Receipt) == 0 {
		c.Result, c.Detail = ResultNotChecked, "offline: give the receipt with --receipt"
		return []Check{c}
	}
	raw, src, err := findReceipt(ctx, rep, opts, fetcher)
	switch {
	case errors.Is(err, ErrNoReceipt) && !asked:
		c.Result, c.Detail = ResultNone, err.Error()
		return []Check{c}
	case errors.Is(err, ErrNoReceipt):
		// The chain was asked for, and there is no receipt to say which transaction: that proves nothing of the
		// credential (its issuer may not anchor), but the anchor the caller wanted checked cannot be.
		c.Result, c.CouldNotCheck, c.Detail = ResultCouldNotCheck, true, "--rpc needs the receipt: "+err.Error()
		return []Check{c}
	case err != nil:
		c.setError(err)
		return []Check{c}
	}
	var r chain.Receipt
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		err = fmt.Errorf("receipt from %s: %w", src, err)
		if len(opts.Receipt) == 0 {
			err = unavailable(err) // the issuer's URL answered something else than a receipt
		}
		c.setError(err)
		return []Check{c}
	}
	if err := r.CheckFormat(); err != nil {
		c.Result, c.Failed, c.Detail = ResultFailed, true, "receipt from "+src+": "+err.Error()
		return []Check{c}
	}
	rep.receipt = raw
	c.Result, c.Detail = ResultOK, fmt.Sprintf("receipt %s v%d from %s", r.Type, r.Version, src)
	if r.CredentialID != rep.ID {
		c.Result, c.Failed, c.Detail = ResultFailed, true, fmt.Sprintf("the receipt from %s is for %s, not %s", src, r.CredentialID, rep.ID)
		return []Check{c}
	}
	checks := []Check{c}

	digest := Check{Name: "anchor digest"}
	sum, err := r.CheckDigest(cred)
	if err != nil {
		digest.Result, digest.Failed, digest.Detail = ResultFailed, true, err.Error()
		return append(checks, digest)
	}
	digest.Result, digest.Detail = ResultOK, "sha256 of the credential bytes is "+r.Digest.Value
	checks = append(checks, digest)

	proof := Check{Name: "anchor proof"}
	data, err := r.AnchoredData(sum)
	switch {
	case err != nil:
		proof.Result, proof.Failed, proof.Detail = ResultFailed, true, err.Error()
		return append(checks, proof)
	case r.Merkle != nil:
		proof.Result, proof.Detail = ResultOK, fmt.Sprintf("leaf %s and %d proof steps lead to root %s", r.Merkle.Leaf, len(r.Merkle.Proof), r.Merkle.Root)
	default:
		proof.Result, proof.Detail = ResultOK, "anchored alone: the transaction data is the digest itself"
	}
	checks = append(checks, proof)

	tx, sender := Check{Name: "anchor transaction"}, Check{Name: "anchor sender"}
	if opts.RPCURL == "" {
		tx.Result, tx.Detail = ResultNotChecked, fmt.Sprintf("give --rpc URL of chain %s to check transaction %s", r.Chain.Namespace, r.Chain.TransactionHash)
		sender.Result, sender.Detail = ResultNotChecked, "needs the transaction (--rpc)"
		return append(checks, tx, sender)
	}
	facts, err := fetchTx(ctx, opts.RPCURL, r)
	if err == nil {
		err = compareTx(r, facts, data)
	}
	if err != nil {
		tx.setError(err)
		sender.Result, sender.Detail = ResultNotChecked, "the transaction did not check"
		if tx.CouldNotCheck {
			sender.Result, sender.CouldNotCheck, sender.Detail = ResultCouldNotCheck, true, "needs the transaction, which could not be checked"
		}
		return append(checks, tx, sender)
	}
	tx.Result, tx.Detail = ResultOK, fmt.Sprintf("%s succeeded in block %d of chain %s; its data is %s", facts.Hash, facts.BlockNumber, r.Chain.Namespace, r.Chain.Data)
	checks = append(checks, tx)

	named, doc, err := issuerNamesAccount(ctx, rep.Issuer, opts.Controllers, fetcher, facts.ChainID, facts.From)
	switch {
	case err != nil:
		sender.setError(err)
	case !strings.EqualFold(facts.From, r.Chain.From):
		sender.Result, sender.Failed, sender.Detail = ResultFailed, true, fmt.Sprintf("the transaction was sent by %s, the receipt says %s", facts.From, r.Chain.From)
	case !named:
		sender.Result, sender.Failed, sender.Detail = ResultFailed, true, fmt.Sprintf("the transaction was sent by %s, which the issuer's controller document %s does not name", facts.From, doc)
	default:
		sender.Result, sender.Detail = ResultOK, fmt.Sprintf("%s, named by the issuer's controller document %s", facts.From, doc)
	}
	return append(checks, sender)
}

// findReceipt returns the receipt given in the options, or fetches it from the issuer. A receipt that cannot be
// fetched (other than a 404, ErrNoReceipt) is unavailable.
func findReceipt(ctx context.Context, rep *Report, opts Options, fetcher Fetcher) ([]byte, string, error) {
	if len(opts.Receipt) > 0 {
		return opts.Receipt, "the given file", nil
	}
	u, ok := ReceiptURL(rep.ID, rep.Issuer)
	if !ok {
		return nil, "", fmt.Errorf("%w: the credential id %q is not a URL on the issuer's host", ErrNoReceipt, rep.ID)
	}
	body, err := fetcher.Fetch(ctx, u)
	switch {
	case err != nil && strings.Contains(err.Error(), "HTTP 404"):
		return nil, "", fmt.Errorf("%w: %s answers 404", ErrNoReceipt, u)
	case err != nil:
		return nil, "", unavailable(fmt.Errorf("anchor receipt: %w", err))
	}
	return body, u, nil
}

// fetchTx asks the node at rpcURL for the receipt's transaction, within FetchTimeout. What says nothing of the
// credential is unavailable: a node that cannot be asked, one on another chain than the receipt's, one without
// the transaction whose head is before the receipt's block (still syncing). A transaction that a node of the
// receipt's chain, past that block, does not have (or has not mined) is a failure.
func fetchTx(ctx context.Context, rpcURL string, r chain.Receipt) (chain.TxFacts, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	v, err := chain.NewVerifier(rpcURL)
	if err != nil {
		return chain.TxFacts{}, unavailable(fmt.Errorf("--rpc %s: %w", rpcURL, err))
	}
	defer v.Close()
	asked := func(err error) error { return unavailable(fmt.Errorf("ask the node at %s: %w", rpcURL, err)) }
	id, err := v.ChainID(ctx)
	if err != nil {
		return chain.TxFacts{}, asked(err)
	}
	if id != r.Chain.ChainID {
		return chain.TxFacts{}, unavailable(fmt.Errorf("the node at %s is on chain %d, the receipt names chain %d: give --rpc of that chain",
			rpcURL, id, r.Chain.ChainID))
	}
	f, err := v.Transaction(ctx, r.Chain.TransactionHash)
	switch {
	case err == nil:
		return f, nil
	case errcode.Of(err) == errcode.BlockchainRPCFailed:
		return chain.TxFacts{}, asked(err)
	case errors.Is(err, chain.ErrTxNotFound) || errors.Is(err, chain.ErrTxPending):
		head, herr := v.HeadBlock(ctx)
		if herr != nil {
			return chain.TxFacts{}, asked(herr)
		}
		if head < r.Chain.BlockNumber {
			return chain.TxFacts{}, unavailable(fmt.Errorf("the node at %s is at block %d, before the receipt's block %d: it is behind",
				rpcURL, head, r.Chain.BlockNumber))
		}
	}
	return chain.TxFacts{}, err
}

// compareTx checks the node's transaction against the receipt's claims and the data the proof leads to.
func compareTx(r chain.Receipt, f chain.TxFacts, data [32]byte) error {
	switch {
	case f.ChainID != r.Chain.ChainID:
		return fmt.Errorf("the node is on chain %d, the receipt names chain %d", f.ChainID, r.Chain.ChainID)
	case !f.Succeeded:
		return fmt.Errorf("transaction %s failed (reverted) in block %d", f.Hash, f.BlockNumber)
	case f.BlockNumber != r.Chain.BlockNumber:
		return fmt.Errorf("transaction %s is in block %d, the receipt says %d", f.Hash, f.BlockNumber, r.Chain.BlockNumber)
	case !bytes.Equal(f.Data, data[:]):
		return fmt.Errorf("transaction %s carries 0x%x, not %#x: %w", f.Hash, f.Data, data, chain.ErrDataMismatch)
	case r.Chain.To != "" && !strings.EqualFold(f.To, r.Chain.To):
		return fmt.Errorf("transaction %s was sent to %s, the receipt says %s", f.Hash, f.To, r.Chain.To)
	}
	return nil
}

// issuerNamesAccount reports whether the issuer's controller document (a trusted one given, else the fetched one)
// names the CAIP-10 account eip155:<chainID>:<address> in a verification method's blockchainAccountId.
func issuerNamesAccount(ctx context.Context, issuerID string, trusted [][]byte, fetcher Fetcher, chainID uint64, address string) (bool, string, error) {
	var doc []byte
	for _, t := range trusted {
		var d struct{ ID string }
		if json.Unmarshal(t, &d) == nil && d.ID == issuerID {
			doc = t
		}
	}
	if doc == nil {
		if fetcher == nil {
			return false, issuerID, unavailable(errors.New("the issuer's controller document is needed (--controller or online)"))
		}
		var err error
		if doc, err = fetcher.Fetch(ctx, issuerID); err != nil {
			return false, issuerID, unavailable(fmt.Errorf("fetch the issuer's controller document: %w", err))
		}
	}
	var d struct {
		ID                 string `json:"id"`
		VerificationMethod []struct {
			BlockchainAccountID string `json:"blockchainAccountId"`
		} `json:"verificationMethod"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return false, issuerID, unavailable(fmt.Errorf("parse the issuer's controller document: %w", err))
	}
	if d.ID != issuerID {
		return false, issuerID, fmt.Errorf("the controller document at %s has id %q", issuerID, d.ID)
	}
	want := fmt.Sprintf("eip155:%d:%s", chainID, address)
	for _, m := range d.VerificationMethod {
		if strings.EqualFold(m.BlockchainAccountID, want) {
			return true, issuerID, nil
		}
	}
	return false, issuerID, nil
}
