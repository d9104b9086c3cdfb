package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/issuancelog"
	"github.com/badged/badged/internal/verifier"
)

// TestIssuance_PublicReceipts issues three credentials through the API and checks each one's public anchor
// receipt end to end, as `badged credential verify --rpc` does: the receipt found from the credential id, the
// digest of the served bytes, the Merkle proof, the transaction on the dev chain and its sender against the
// controller document, which still verifies the credentials' Multikey proofs.
func TestIssuance_PublicReceipts(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "receipts-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("rc", 3), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])

	ctrl := s.get(t, "/issuers/"+tn.Org.ID.String(), "", "")
	require.Equal(t, http.StatusOK, ctrl.Status)
	require.Contains(t, string(ctrl.Raw), `"blockchainAccountId":"eip155:1337:`+s.Chain.Address().Hex()+`"`)

	for _, row := range s.assertionRows(t, id) {
		credURL := s.BaseURL + "/credentials/" + row.ID.String()
		res := s.get(t, credURL+"/receipt", "", "")
		require.Equal(t, http.StatusOK, res.Status, string(res.Raw))
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		require.NotEmpty(t, res.Header.Get("ETag"))
		require.Contains(t, []string{"no-cache", "public, max-age=31536000, immutable"}, res.Header.Get("Cache-Control"))
		var r chain.Receipt
		require.NoError(t, json.Unmarshal(res.Raw, &r))
		require.Equal(t, chain.ReceiptType, r.Type)
		require.Equal(t, credURL, r.CredentialID)
		require.Equal(t, *row.AnchorTxHash, r.Chain.TransactionHash)
		require.EqualValues(t, *row.AnchorBlock, r.Chain.BlockNumber)
		require.EqualValues(t, devchain.ChainID, r.Chain.ChainID)
		require.Equal(t, s.Chain.Address().Hex(), r.Chain.From)
		require.NotNil(t, r.Merkle)
		// The issuance log (issue 28): the receipt proves the credential's entry, and the checkpoint's root rides in
		// the same anchor transaction.
		var withLog struct {
			Log *issuancelog.ReceiptLog `json:"log"`
		}
		require.NoError(t, json.Unmarshal(res.Raw, &withLog))
		require.NotNil(t, withLog.Log, string(res.Raw))
		require.EqualValues(t, 3, withLog.Log.TreeSize)
		require.NotNil(t, withLog.Log.Anchor)
		require.Equal(t, r.Merkle.Root, withLog.Log.Anchor.Root)

		cred := s.get(t, credURL, "", "").Raw
		rep, err := verifier.Verify(context.Background(), cred, verifier.Options{RPCURL: s.Chain.URL()})
		require.NoError(t, err)
		var lines []string
		for _, c := range rep.Checks {
			lines = append(lines, c.Name+": "+c.Result+" ("+c.Detail+")")
		}
		require.True(t, rep.Valid(), strings.Join(lines, "\n"))
		for _, name := range []string{"signature", "anchor", "anchor digest", "anchor proof", "anchor transaction", "anchor sender", "issuance log"} {
			require.Contains(t, lines, findLine(lines, name+": ok ("), "check %s", name)
		}
	}

	var ids []uuid.UUID
	for _, row := range s.assertionRows(t, id) {
		ids = append(ids, row.ID)
	}
	requireLogIntact(t, s, tn.Org.ID, ids)

	missing := s.get(t, "/credentials/"+uuid.NewString()+"/receipt", "", "")
	require.Equal(t, http.StatusNotFound, missing.Status)
	require.Equal(t, false, missing.Body["success"])
	require.Equal(t, "NOT_FOUND", missing.Body["error"].(map[string]any)["code"])
}

func findLine(lines []string, prefix string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return "(no line starting " + prefix + ")"
}
