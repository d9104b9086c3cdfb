package db_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
)

// stateColumns names the columns whose CHECK constraints list states, and the constants that mirror each list.
var stateColumns = map[string][]string{
	"assertions.state":            strs(db.AssertionStates),
	"issuances.processing_status": strs(db.IssuanceStatuses),
	"notifications.status":        strs(db.NotificationStatuses),
	"notification_resends.status": strs(db.NotificationStatuses),
	"webhook_deliveries.status":   strs(db.DeliveryStatuses),
	"expiry_reminders.state":      strs(db.ReminderStates),
	"badges.publish_status":       strs(db.PublishStatuses),
	"programs.publish_status":     strs(db.PublishStatuses),
	"api_keys.mode":               modes,
	"issuances.mode":              modes,
	"assertions.mode":             modes,
	"issuer_keys.mode":            modes,
	"issuer_rsa_keys.mode":        modes,
	"credential_offers.mode":      modes,
	"assertion_stats_daily.mode":  modes,
}

var modes = []string{apikey.ModeLive, apikey.ModeTest}

func strs[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// TestStatesMatchConstraints holds the state constants of package db (and apikey's modes) to the CHECK
// constraints of the migrated schema: a migration that adds, drops or renames a state, or a new table with a
// state, status or mode column under a CHECK, fails here until the constants say the same.
func TestStatesMatchConstraints(t *testing.T) {
	d := dbtest.New(t)
	rows, err := d.Pool.Query(context.Background(), `
		SELECT c.conrelid::regclass::text || '.' || a.attname, pg_get_constraintdef(c.oid)
		FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		WHERE c.contype = 'c' AND cardinality(c.conkey) = 1 AND c.connamespace = 'public'::regnamespace
		  AND a.attname IN ('state', 'status', 'processing_status', 'publish_status', 'mode')`)
	require.NoError(t, err)
	defer rows.Close()
	quoted := regexp.MustCompile(`'([^']*)'::text`)
	found := map[string][]string{}
	for rows.Next() {
		var column, def string
		require.NoError(t, rows.Scan(&column, &def))
		var values []string
		for _, m := range quoted.FindAllStringSubmatch(def, -1) {
			values = append(values, m[1])
		}
		require.NotEmpty(t, values, "%s: a CHECK that lists no values: %s", column, def)
		found[column] = append(found[column], values...)
	}
	require.NoError(t, rows.Err())
	for column, values := range found {
		want, ok := stateColumns[column]
		require.True(t, ok, "%s has a CHECK over %v: give it constants in db/states.go and a line in stateColumns", column, values)
		require.ElementsMatch(t, want, values, "%s: the constants and the CHECK constraint differ", column)
	}
	for column := range stateColumns {
		require.Contains(t, found, column, "%s: no CHECK constraint found for it", column)
	}
}
