package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/workflows"
)

// TestIssuance_BatchAnchor issues to more recipients than workflows.BatchAnchorThreshold: the credentials of a
// batch share ONE transaction carrying a Merkle root, each credential has its inclusion proof, every proof checks
// against the chain, and the verification page says so.
func TestIssuance_BatchAnchor(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 100)
	n := workflows.BatchAnchorThreshold + 5
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "batch-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("batch", n), ""))
	iss := s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)
	require.Equal(t, "COMPLETED", iss["processingStatus"])

	// One transaction for the batch, mined, and nothing else sent by the sender.
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs"))
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs WHERE block_number IS NOT NULL AND anchor_key LIKE 'batch/%'"))
	require.EqualValues(t, 1, s.senderNonce(t))
	require.Len(t, messagesByID(t, s.SMTP.Messages()), n, "one mail per recipient")

	v, err := chain.NewVerifier(s.Chain.URL())
	require.NoError(t, err)
	defer v.Close()
	res := s.resolver(t, tn.Org.ID.String())
	rows := s.assertionRows(t, id)
	require.Len(t, rows, n)
	for _, r := range rows {
		require.Equal(t, "RECEIVED", r.State)
		require.NotNil(t, r.AnchorProof, "assertion %s has no inclusion proof", r.ID)
		var proof chain.Proof
		require.NoError(t, json.Unmarshal(r.AnchorProof, &proof))
		cred := s.mustVerifiedCredential(t, s.BaseURL+"/credentials/"+r.ID.String(), res, tn.Org.ID.String())
		a, err := v.VerifyProof(context.Background(), *r.AnchorTxHash, sha256.Sum256(cred), proof)
		require.NoError(t, err, "inclusion proof of %s", r.ID)
		require.EqualValues(t, *r.AnchorBlock, a.BlockNumber)
		// The proof is bound to this credential: another credential's digest does not verify with it.
		_, err = v.VerifyProof(context.Background(), *r.AnchorTxHash, sha256.Sum256(append(cred, ' ')), proof)
		require.Error(t, err)
	}
	page := s.verifyPage(t, rows[0].ID.String())
	require.Contains(t, page, "This badge is valid.")
	require.Contains(t, page, "Merkle tree")
}
