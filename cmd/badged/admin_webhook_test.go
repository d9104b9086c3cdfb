package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/webhook"
)

func TestAdminWebhook_CreateListDelete(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	org, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: "Hooks", Credits: 0})
	require.NoError(t, err)
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, d), "LOG_LEVEL": "error"}
	env := func(k string) string { return vars[k] }
	admin := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		err := run(ctx, append([]string{"admin", "webhook"}, args...), env, &out, &bytes.Buffer{})
		if err != nil {
			return nil, err
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
		return m, nil
	}

	created, err := admin("create", "--org", org.ID.String(), "--url", "https://hooks.example.com/badged",
		"--events", "issuance.completed,assertion.revoked")
	require.NoError(t, err)
	id := created["id"].(string)
	require.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, created["secret"])
	require.Equal(t, []any{"issuance.completed", "assertion.revoked"}, created["events"])

	list, err := admin("list", "--org", org.ID.String())
	require.NoError(t, err)
	hooks := list["webhooks"].([]any)
	require.Len(t, hooks, 1)
	require.Equal(t, id, hooks[0].(map[string]any)["id"])
	require.NotContains(t, hooks[0], "secret", "shown only at creation")

	dl, err := admin("deliveries", id)
	require.NoError(t, err)
	require.Empty(t, dl["deliveries"])

	_, err = admin("create", "--org", org.ID.String(), "--url", "https://hooks.example.com/", "--events", "issuance.started")
	require.ErrorContains(t, err, `unknown event type "issuance.started"`)
	_, err = admin("create", "--org", uuid.NewString(), "--url", "https://hooks.example.com/")
	require.ErrorContains(t, err, "no organization")
	vars["WEBHOOK_ALLOW_HTTP"], vars["WEBHOOK_ALLOW_PRIVATE"] = "false", "false"
	_, err = admin("create", "--org", org.ID.String(), "--url", "http://hooks.example.com/")
	require.ErrorContains(t, err, "must use https")
	_, err = admin("create", "--org", org.ID.String(), "--url", "https://192.168.0.10/")
	require.ErrorContains(t, err, "private")

	deleted, err := admin("delete", id)
	require.NoError(t, err)
	require.Equal(t, true, deleted["deleted"])
	list, err = admin("list")
	require.NoError(t, err)
	require.Empty(t, list["webhooks"])
	_, err = admin("delete", id)
	require.ErrorContains(t, err, "no webhook")
}

// TestAdminWebhook_LimitHoldsUnderConcurrency: 40 concurrent `admin webhook create` for one organization leave
// exactly 20 endpoints, the rest refused with the reason; the database holds the limit, not the command.
func TestAdminWebhook_LimitHoldsUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	org, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: "Hooks", Credits: 0})
	require.NoError(t, err)
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = adminCreateWebhook(ctx, d, webhook.URLPolicy{}, org.ID.String(),
				fmt.Sprintf("https://93.184.215.14/hook/%d", i), "")
		}()
	}
	close(start)
	wg.Wait()
	refused := 0
	for _, err := range errs {
		if err != nil {
			require.ErrorContains(t, err, "already has 20 endpoints")
			refused++
		}
	}
	require.Equal(t, n-db.MaxWebhookEndpoints, refused)
	rows, err := d.ListWebhookEndpoints(ctx, org.ID)
	require.NoError(t, err)
	require.Len(t, rows, db.MaxWebhookEndpoints)
}
