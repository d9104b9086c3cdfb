package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/mail"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestIssuance_NamesWithQuotesAreDelivered: an organization named with quotes and a comma, and recipients whose
// names hold quotes, commas and angle brackets, get their mail at the first attempt through the whole pipeline:
// every recipient RECEIVED, one message each to their own address only, the names intact in To and From. (Before,
// the From header could not be built for such an organization, so no recipient of it got mail.)
func TestIssuance_NamesWithQuotesAreDelivered(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	ctx := context.Background()
	org := `Hanbit "Lifelong, Learning" Center`
	_, err := s.DB.Pool.Exec(ctx, `UPDATE organizations SET name = $2 WHERE id = $1`, tn.Org.ID, org)
	require.NoError(t, err)
	names := []string{`김 "민수, Jr." Lee`, `x" <a@evil.test> (`, `Ann <ann@evil.test>, Bob`}
	var rs []recipientJSON
	for i, n := range names {
		rs = append(rs, recipientJSON{Name: n, Email: ptr(fmt.Sprintf("quoted-%d@example.com", i)), ReceiveType: "EMAIL"})
	}
	before := s.credits(t, tn.Org.ID)

	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "quotes-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	msgs := messagesByID(t, s.SMTP.Messages())
	for i, a := range s.assertionRows(t, id) {
		require.Equal(t, "RECEIVED", a.State, names[i])
		require.Nil(t, a.ErrorCode, names[i])
		m, ok := msgs[messageID(a.ID.String())]
		require.True(t, ok, "mail for %s", names[i])
		require.Equal(t, []string{*rs[i].Email}, m.To, "the envelope has the recipient's address only")
		parsed, err := mail.ReadMessage(bytes.NewReader(m.Data))
		require.NoError(t, err)
		to, err := parsed.Header.AddressList("To")
		require.NoError(t, err)
		require.Equal(t, []*mail.Address{{Name: names[i], Address: *rs[i].Email}}, to)
		from, err := parsed.Header.AddressList("From")
		require.NoError(t, err)
		require.Equal(t, org+" via badged", from[0].Name)
	}
	require.Zero(t, s.count(t, `SELECT count(*) FROM notifications n JOIN assertions a ON a.id = n.assertion_id
		WHERE a.issuance_id = $1 AND n.last_error IS NOT NULL`, uuid.MustParse(id)), "no attempt failed")
	require.Equal(t, before-int64(len(names)), s.credits(t, tn.Org.ID))
}
