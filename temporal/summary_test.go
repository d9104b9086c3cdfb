package temporal

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

func TestIssuanceSummary(t *testing.T) {
	iss := db.Issuance{ID: uuid.New(), OrgID: uuid.New(), BadgeID: uuid.New(), ApiVersion: 3, Mode: "live", AssertionCount: 10_000}
	n := issuanceNames{badge: "Gopher", org: "Acme\nUniversity"}
	require.Equal(t, "Issue «Gopher» to 10,000 recipients · Acme University · v3 live", issuanceSummary(iss, n))
	iss.Renewal, iss.AssertionCount, iss.Mode = true, 1, "test"
	require.Equal(t, "Renew «Gopher» to 1 recipient · Acme University · v3 test", issuanceSummary(iss, n))
	require.Equal(t, "Renew badge "+iss.BadgeID.String()+" to 1 recipient · org "+iss.OrgID.String()+" · v3 test",
		issuanceSummary(iss, issuanceNames{}))

	d := Starter{BaseURL: "https://badges.example/"}.issuanceDetails(iss, n)
	require.Contains(t, d, "https://badges.example/public/v3/issuances/"+iss.ID.String())
	require.Contains(t, d, "https://badges.example/public/v3/badges/"+iss.BadgeID.String())
	require.Contains(t, d, "badged admin issuance inspect "+iss.ID.String())
	require.NotContains(t, d, "temporal workflow update", "no window: the workflow never waits for the Update")
	iss.WorkflowID = "issuance/test/x"
	d = Starter{RedriveWindow: 24 * time.Hour}.issuanceDetails(iss, n)
	require.Contains(t, d, "temporal workflow update execute --workflow-id 'issuance/test/x' --name redrive")
	require.Contains(t, d, "up to 24h0m0s after its pipeline")

	require.Equal(t, "Re-drive 37 recipients · run 2 · Renew «Gopher» to 1 recipient · Acme University · v3 test",
		redriveSummary(iss, n, "issuance/live/x/y/z/redrive-2", 37))
}
