package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
)

// adminWebhook runs `badged admin webhook create|list|delete|enable|deliveries|redeliver` and prints one JSON object.
func adminWebhook(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) < 1 {
		return errUsage
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	fs := flag.NewFlagSet("admin webhook "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var out any
	switch args[0] {
	case "create":
		org := fs.String("org", "", "organization id")
		url := fs.String("url", "", "endpoint URL")
		events := fs.String("events", "", "comma-separated event types (default: all)")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		out, err = adminCreateWebhook(ctx, d, webhookURLs(cfg), *org, *url, *events)
	case "list":
		org := fs.String("org", "", "organization id (default: all)")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		out, err = adminListWebhooks(ctx, d, *org)
	case "delete", "enable", "deliveries", "redeliver":
		if len(args) != 2 {
			return errUsage
		}
		switch args[0] {
		case "delete":
			out, err = adminDeleteWebhook(ctx, d, args[1])
		case "enable":
			out, err = adminEnableWebhook(ctx, d, args[1])
		case "deliveries":
			out, err = adminWebhookDeliveries(ctx, d, args[1])
		case "redeliver":
			out, err = adminRedeliver(ctx, cfg, d, args[1])
		}
	default:
		return errUsage
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(out)
}

// webhookOut is an endpoint; Secret is printed by create only.
type webhookOut struct {
	ID                  string   `json:"id"`
	OrgID               string   `json:"orgId"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"`
	Secret              string   `json:"secret,omitempty"`
	Disabled            bool     `json:"disabled"`
	DisabledAt          string   `json:"disabledAt,omitempty"`
	DisabledReason      string   `json:"disabledReason,omitempty"`
	ConsecutiveFailures int      `json:"consecutiveFailures"`
	CreatedAt           string   `json:"createdAt"`
}

func toWebhookOut(e db.WebhookEndpoint) webhookOut {
	out := webhookOut{ID: e.ID.String(), OrgID: e.OrgID.String(), URL: e.Url, Events: e.Events, Disabled: e.DisabledAt != nil,
		ConsecutiveFailures: int(e.ConsecutiveFailures), CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339)}
	if out.Events == nil {
		out.Events = []string{}
	}
	if e.DisabledAt != nil {
		out.DisabledAt = e.DisabledAt.UTC().Format(time.RFC3339)
	}
	if e.DisabledReason != nil {
		out.DisabledReason = *e.DisabledReason
	}
	return out
}

func adminCreateWebhook(ctx context.Context, d *db.DB, urls webhook.URLPolicy, org, url, events string) (webhookOut, error) {
	orgID, err := uuid.Parse(org)
	if err != nil {
		return webhookOut{}, errors.New("webhook create: --org must be an organization id")
	}
	if err := urls.CheckURL(ctx, url); err != nil {
		return webhookOut{}, fmt.Errorf("webhook create: --url %s", err)
	}
	types := []string{}
	for _, t := range strings.Split(events, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if !webhook.ValidType(t) {
			return webhookOut{}, fmt.Errorf("webhook create: unknown event type %q (known: %s)", t, strings.Join(webhook.Types, ", "))
		}
		types = append(types, t)
	}
	if _, err := d.GetOrganization(ctx, orgID); err != nil {
		if db.IsNotFound(err) {
			return webhookOut{}, fmt.Errorf("webhook create: no organization %s", orgID)
		}
		return webhookOut{}, err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return webhookOut{}, err
	}
	e, err := d.CreateWebhookEndpoint(ctx, db.CreateWebhookEndpointParams{ID: uuid.New(), OrgID: orgID, Url: url,
		Secret: secret, Events: types})
	if db.IsWebhookLimit(err) {
		return webhookOut{}, fmt.Errorf("webhook create: organization %s already has %d endpoints; delete one first", orgID, db.MaxWebhookEndpoints)
	}
	if err != nil {
		return webhookOut{}, fmt.Errorf("store webhook: %w", err)
	}
	out := toWebhookOut(e)
	out.Secret = e.Secret
	return out, nil
}

type webhookListOut struct {
	Webhooks []webhookOut `json:"webhooks"`
}

func adminListWebhooks(ctx context.Context, d *db.DB, org string) (webhookListOut, error) {
	var rows []db.WebhookEndpoint
	var err error
	if org == "" {
		rows, err = d.ListAllWebhookEndpoints(ctx)
	} else {
		orgID, perr := uuid.Parse(org)
		if perr != nil {
			return webhookListOut{}, errors.New("webhook list: --org must be an organization id")
		}
		rows, err = d.ListWebhookEndpoints(ctx, orgID)
	}
	if err != nil {
		return webhookListOut{}, err
	}
	out := webhookListOut{Webhooks: make([]webhookOut, len(rows))}
	for i, e := range rows {
		out.Webhooks[i] = toWebhookOut(e)
	}
	return out, nil
}

func parseEndpointID(cmd, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("webhook %s: ID must be a webhook endpoint id", cmd)
	}
	return id, nil
}

func adminDeleteWebhook(ctx context.Context, d *db.DB, s string) (map[string]any, error) {
	id, err := parseEndpointID("delete", s)
	if err != nil {
		return nil, err
	}
	n, err := d.DeleteWebhookEndpointAnyOrg(ctx, id)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("webhook delete: no webhook %s", id)
	}
	return map[string]any{"id": id.String(), "deleted": true}, nil
}

// adminEnableWebhook turns a disabled endpoint back on (after its receiver was fixed); its failure counts restart.
func adminEnableWebhook(ctx context.Context, d *db.DB, s string) (webhookOut, error) {
	id, err := parseEndpointID("enable", s)
	if err != nil {
		return webhookOut{}, err
	}
	e, err := d.EnableWebhookEndpoint(ctx, id)
	if db.IsNotFound(err) {
		return webhookOut{}, fmt.Errorf("webhook enable: no webhook %s", id)
	}
	if err != nil {
		return webhookOut{}, err
	}
	return toWebhookOut(e), nil
}

type deliveryOut struct {
	ID             string       `json:"id"`
	EventID        string       `json:"eventId"`
	EventType      string       `json:"eventType"`
	Status         string       `json:"status"`
	RedeliveryOf   string       `json:"redeliveryOf,omitempty"`
	LastStatusCode *int32       `json:"lastStatusCode"`
	CreatedAt      string       `json:"createdAt"`
	Attempts       []attemptOut `json:"attempts"`
}

type attemptOut struct {
	Attempt    int32   `json:"attempt"`
	StatusCode *int32  `json:"statusCode"`
	LatencyMs  int32   `json:"latencyMs"`
	Error      *string `json:"error,omitempty"`
	At         string  `json:"at"`
}

// adminDeliveryCap bounds the deliveries printed: the newest ones.
const adminDeliveryCap = 100

func adminWebhookDeliveries(ctx context.Context, d *db.DB, s string) (map[string]any, error) {
	id, err := parseEndpointID("deliveries", s)
	if err != nil {
		return nil, err
	}
	e, err := d.GetWebhookEndpointAnyOrg(ctx, id)
	if db.IsNotFound(err) {
		return nil, fmt.Errorf("webhook deliveries: no webhook %s", id)
	}
	if err != nil {
		return nil, err
	}
	rows, err := d.ListWebhookDeliveries(ctx, db.ListWebhookDeliveriesParams{EndpointID: id, MaxRows: adminDeliveryCap})
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	attempts, err := d.ListWebhookAttempts(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[uuid.UUID][]attemptOut{}
	for _, a := range attempts {
		byID[a.DeliveryID] = append(byID[a.DeliveryID], attemptOut{Attempt: a.Attempt, StatusCode: a.StatusCode,
			LatencyMs: a.LatencyMs, Error: a.Error, At: a.At.UTC().Format(time.RFC3339Nano)})
	}
	out := make([]deliveryOut, len(rows))
	for i, r := range rows {
		out[i] = deliveryOut{ID: r.ID.String(), EventID: r.EventID, EventType: r.EventType, Status: r.Status,
			LastStatusCode: r.LastStatusCode, CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano), Attempts: byID[r.ID]}
		if out[i].Attempts == nil {
			out[i].Attempts = []attemptOut{}
		}
		if r.RedeliveryOf != nil {
			out[i].RedeliveryOf = r.RedeliveryOf.String()
		}
	}
	return map[string]any{"webhook": toWebhookOut(e), "deliveries": out}, nil
}

// adminRedeliver sends an event again: a delivery id redelivers to that delivery's endpoint; an event id (evt_…)
// to every endpoint it was delivered to. Each is a new delivery with the same webhook-id.
func adminRedeliver(ctx context.Context, cfg config.Config, d *db.DB, s string) (map[string]any, error) {
	var of []uuid.UUID
	if strings.HasPrefix(s, "evt_") {
		rows, err := d.ListDeliveriesOfEvent(ctx, s)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("webhook redeliver: event %s has no deliveries", s)
		}
		for _, r := range rows {
			of = append(of, r.ID)
		}
	} else {
		id, err := uuid.Parse(s)
		if err != nil {
			return nil, errors.New("webhook redeliver: ID must be a delivery id or an event id (evt_…)")
		}
		if _, err := d.GetWebhookDelivery(ctx, id); db.IsNotFound(err) {
			return nil, fmt.Errorf("webhook redeliver: no delivery %s", id)
		} else if err != nil {
			return nil, err
		}
		of = []uuid.UUID{id}
	}
	tc, err := dialAdminTemporal(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer tc.Close()
	var started []string
	for _, id := range of {
		del, err := temporal.Redeliver(ctx, d, temporal.Starter{Client: tc, DB: d, BaseURL: cfg.PublicBaseURL}, id)
		if err != nil {
			return nil, err
		}
		started = append(started, del.ID.String())
	}
	return map[string]any{"deliveries": started}, nil
}
