package issuer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
)

// AnchorAccount is the chain account that sends this deployment's anchor transactions.
type AnchorAccount struct {
	ChainID uint64
	Address string // 0x-hex, EIP-55 checksummed
}

// BlockchainAccountID is the account as a CAIP-10 id, "eip155:<chainId>:<address>".
func (a AnchorAccount) BlockchainAccountID() string {
	return "eip155:" + strconv.FormatUint(a.ChainID, 10) + ":" + a.Address
}

// AnchorMethodFragment is the id fragment of the anchoring account in the controller document.
const AnchorMethodFragment = "#anchor-sender"

// anchorContext defines the two terms of the anchoring entry inline (as did:pkh documents do), so that a JSON-LD
// processor needs no extra context document.
var anchorContext = map[string]any{
	"EcdsaSecp256k1RecoveryMethod2020": "https://identity.foundation/EcdsaSecp256k1RecoverySignature2020#EcdsaSecp256k1RecoveryMethod2020",
	"blockchainAccountId":              "https://w3id.org/security#blockchainAccountId",
}

// AddAnchorAccount adds the anchoring account to a controller document as a verification method of type
// EcdsaSecp256k1RecoveryMethod2020 with a CAIP-10 blockchainAccountId: the form did:pkh and did:ethr documents
// use for an EVM account, so DID tooling reads it. It is listed under no verification relationship (not
// assertionMethod), so no verifier can take it for a key of the credentials' proofs: the Multikey stays the only
// assertion key.
func AddAnchorAccount(doc map[string]any, issuerID string, acct AnchorAccount) {
	ctx, _ := doc["@context"].([]any)
	doc["@context"] = append(ctx, anchorContext)
	vms, _ := doc["verificationMethod"].([]any)
	doc["verificationMethod"] = append(vms, map[string]any{
		"id":                  issuerID + AnchorMethodFragment,
		"type":                "EcdsaSecp256k1RecoveryMethod2020",
		"controller":          issuerID,
		"blockchainAccountId": acct.BlockchainAccountID(),
	})
}

// Receipt returns the public anchor receipt of an issued assertion's credential; found is false when the
// assertion is unknown, not issued, or its anchor is not mined yet.
// The id may also be a wallet copy's (its urn:uuid id without the prefix): a copy's receipt exists once the worker's
// wallet anchor sweep put it in a mined transaction.
func (s *Service) Receipt(ctx context.Context, assertion uuid.UUID) (chain.Receipt, bool, error) {
	row, err := s.DB.GetAnchorReceipt(ctx, assertion)
	credentialID := s.CredentialID(assertion)
	if db.IsNotFound(err) {
		var w db.GetWalletAnchorReceiptRow
		w, err = s.DB.GetWalletAnchorReceipt(ctx, assertion)
		row, credentialID = db.GetAnchorReceiptRow(w), "urn:uuid:"+assertion.String()
	}
	if db.IsNotFound(err) {
		return chain.Receipt{}, false, nil
	}
	if err != nil {
		return chain.Receipt{}, false, fmt.Errorf("load anchor receipt: %w", err)
	}
	in := chain.ReceiptInput{CredentialID: credentialID, TxHash: row.TxHash,
		BlockNumber: uint64(row.Block), ChainID: uint64(row.ChainID)}
	if len(row.CredentialSha256) != 32 {
		return chain.Receipt{}, false, fmt.Errorf("assertion %s: stored digest is %d bytes", assertion, len(row.CredentialSha256))
	}
	copy(in.Digest[:], row.CredentialSha256)
	if row.AnchorProof != nil {
		if err := json.Unmarshal(row.AnchorProof, &in.Proof); err != nil {
			return chain.Receipt{}, false, fmt.Errorf("assertion %s: stored proof: %w", assertion, err)
		}
		in.Batched = true
	}
	if in.From, in.To, err = chain.SignedTxAddresses(row.RawTx); err != nil {
		return chain.Receipt{}, false, fmt.Errorf("assertion %s: %w", assertion, err)
	}
	return chain.NewReceipt(in), true, nil
}
