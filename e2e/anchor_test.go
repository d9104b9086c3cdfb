package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
)

// TestIssuance_AnchorsShareATransaction posts two issuances one after the other: with ANCHOR_MIN_WAIT their
// credentials wait for each other and share ONE transaction carrying a Merkle root; each credential has its
// inclusion proof, every proof checks against the chain, and the verification page says so.
func TestIssuance_AnchorsShareATransaction(t *testing.T) {
	// A wait long enough that both issuances reach their anchor within it even on a loaded machine.
	s := newStack(t, stackOptions{anchorWait: 8 * time.Second, anchorMinWait: 8 * time.Second})
	tn := s.mustTenant(t, 100)
	big := s.mustIssue(t, "v3", tn.Key, tn.Badge, "big-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("big", 25), ""))
	small := s.mustIssue(t, "v3", tn.Key, tn.Badge, "small-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("small", 3), ""))
	for _, id := range []string{big, small} {
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	}

	// One transaction for both, mined, and nothing else sent by the sender.
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs"))
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs WHERE block_number IS NOT NULL AND anchor_key LIKE 'anchor/%'"))
	require.EqualValues(t, 1, s.senderNonce(t))
	require.Len(t, messagesByID(t, s.SMTP.Messages()), 28, "one mail per recipient")
	rows := append(s.assertionRows(t, big), s.assertionRows(t, small)...)
	s.requireAnchorProofs(t, tn.Org.ID.String(), rows)
	requireAnchorRoots(t, s.DB, s.Chain.URL())
	page := s.verifyPage(t, rows[0].ID.String())
	require.Contains(t, page, "This badge is valid</h1>")
	require.Contains(t, page, "Merkle tree")
}

// requireAnchorProofs checks each assertion's inclusion proof against its transaction on chain, and that the
// proof is bound to that credential.
func (s *stack) requireAnchorProofs(t *testing.T, org string, rows []db.Assertion) {
	t.Helper()
	v, err := chain.NewVerifier(s.Chain.URL())
	require.NoError(t, err)
	defer v.Close()
	res := s.resolver(t, org)
	for _, r := range rows {
		require.Equal(t, "RECEIVED", r.State)
		require.NotNil(t, r.AnchorProof, "assertion %s has no inclusion proof", r.ID)
		var proof chain.Proof
		require.NoError(t, json.Unmarshal(r.AnchorProof, &proof))
		cred := s.mustVerifiedCredential(t, s.BaseURL+"/credentials/"+r.ID.String(), res, org)
		a, err := v.VerifyProof(context.Background(), *r.AnchorTxHash, sha256.Sum256(cred), proof)
		require.NoError(t, err, "inclusion proof of %s", r.ID)
		require.EqualValues(t, *r.AnchorBlock, a.BlockNumber)
		// The proof is bound to this credential: another credential's digest does not verify with it.
		_, err = v.VerifyProof(context.Background(), *r.AnchorTxHash, sha256.Sum256(append(cred, ' ')), proof)
		require.Error(t, err)
	}
}

// TestIssuance_AnchorGoesWhenAllChunksArrived issues 250 recipients (three chunks) under an anchor wait far
// longer than the test: the batch goes as soon as the last chunk is signed and arrives, not after the wait, and
// the three chunks still share ONE transaction.
func TestIssuance_AnchorGoesWhenAllChunksArrived(t *testing.T) {
	const wait = 10 * time.Minute
	s := newStack(t, stackOptions{anchorWait: wait})
	tn := s.mustTenant(t, 250)
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "chunks-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("chunk", 250), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs"), "the three chunks share one transaction")
	require.EqualValues(t, 1, s.senderNonce(t))
	require.Equal(t, 250, s.count(t, "SELECT count(*) FROM assertions WHERE anchor_proof IS NOT NULL AND state = 'RECEIVED'"))
	// issueTimeout is shorter than the wait, so completing at all shows the batch did not wait it out.
	require.Less(t, issueTimeout, wait)
}
