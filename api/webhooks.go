package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/webhook"
)

// WebhookStarter starts the workflow of a webhook delivery; temporal.Starter satisfies it.
type WebhookStarter interface {
	StartWebhookDelivery(ctx context.Context, deliveryID uuid.UUID) error
}

// webhookResponse is an endpoint as the v3 extension shows it. The secret appears only in the answer to create.
type webhookResponse struct {
	ID                  string   `json:"id"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"` // empty: every event type
	Secret              string   `json:"secret,omitempty"`
	Disabled            bool     `json:"disabled"`
	DisabledAt          *string  `json:"disabledAt"`
	DisabledReason      *string  `json:"disabledReason"`
	ConsecutiveFailures int      `json:"consecutiveFailures"`
	CreatedAt           string   `json:"createdAt"`
}

func (h *handler) toWebhookResponse(r *http.Request, e db.WebhookEndpoint) webhookResponse {
	v := versionOf(r.Context())
	out := webhookResponse{ID: e.ID.String(), URL: e.Url, Events: e.Events, Disabled: e.DisabledAt != nil,
		DisabledReason: e.DisabledReason, ConsecutiveFailures: int(e.ConsecutiveFailures), CreatedAt: v.formatTime(e.CreatedAt, h.loc)}
	if out.Events == nil {
		out.Events = []string{}
	}
	if e.DisabledAt != nil {
		s := v.formatTime(*e.DisabledAt, h.loc)
		out.DisabledAt = &s
	}
	return out
}

// createWebhook registers an endpoint: {"url": "...", "events": ["issuance.completed", ...]} (events optional,
// omitted or [] for all). The URL must pass the URL policy now; deliveries check the resolved address again.
func (h *handler) createWebhook(w http.ResponseWriter, r *http.Request) error {
	o, err := h.decodeBody(w, r, maxJSONBody)
	if err != nil {
		return err
	}
	o.only("url", "events")
	u := o.text("url", textRule{max: 2048})
	requireFields(o, map[string]bool{"url": u.Set})
	events := readEventTypes(o)
	if err := o.err(); err != nil {
		return err
	}
	if err := h.webhookURLs.CheckURL(r.Context(), u.Val); err != nil {
		return fieldsError([]fieldError{{Field: "url", Message: err.Error()}})
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return err
	}
	// The database holds the limit of endpoints per organization (every event fans out to each), under a lock, so
	// concurrent creates cannot pass it together.
	out, err := h.db.CreateWebhookEndpoint(r.Context(), db.CreateWebhookEndpointParams{ID: uuid.New(),
		OrgID: principalOf(r.Context()).OrgID, Url: u.Val, Secret: secret, Events: events})
	if db.IsWebhookLimit(err) {
		return newError(codeValidation, "an organization has at most %d webhook endpoints; delete one first", db.MaxWebhookEndpoints)
	}
	if err != nil {
		return err
	}
	resp := h.toWebhookResponse(r, out)
	resp.Secret = out.Secret
	h.ok(w, resp)
	return nil
}

// readEventTypes reads the optional events array: distinct known event types.
func readEventTypes(o *object) []string {
	items, ok := o.array("events")
	if !ok {
		return []string{}
	}
	out := []string{}
	for i, raw := range items {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			o.badFormat(fmt.Sprintf("events[%d]", i), "must be a string")
			continue
		}
		if !webhook.ValidType(s) {
			o.fail(fmt.Sprintf("events[%d]", i), fmt.Sprintf("unknown event type %q; allowed: %s", s, strings.Join(webhook.Types, ", ")))
			continue
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// listWebhooks lists the organization's endpoints (never their secrets), disabled ones with their reason.
func (h *handler) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	rows, err := h.db.ListWebhookEndpoints(r.Context(), principalOf(r.Context()).OrgID)
	if err != nil {
		return err
	}
	items := make([]webhookResponse, len(rows))
	for i, e := range rows {
		items[i] = h.toWebhookResponse(r, e)
	}
	okList(h, w, pageRequest{page: 1, size: max(len(items), 1)}, int64(len(items)), items)
	return nil
}

// deleteWebhook removes an endpoint with its deliveries; deliveries in flight end CANCELLED.
func (h *handler) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "webhookId")
	if err != nil {
		return err
	}
	n, err := h.db.DeleteWebhookEndpoint(r.Context(), db.DeleteWebhookEndpointParams{OrgID: principalOf(r.Context()).OrgID, ID: id.UUID})
	if err != nil {
		return err
	}
	if n == 0 {
		return newError(codeWebhookNotFound, "webhook %s not found", id)
	}
	h.ok(w, map[string]any{"id": id.String(), "deleted": true})
	return nil
}

// deliveryResponse is one delivery with its attempts.
type deliveryResponse struct {
	ID             string            `json:"id"`
	EventID        string            `json:"eventId"`
	EventType      string            `json:"eventType"`
	WebhookID      string            `json:"webhookId"`
	Status         string            `json:"status"` // PENDING, SUCCEEDED, FAILED, CANCELLED
	Redelivery     bool              `json:"redelivery"`
	RedeliveryOf   *string           `json:"redeliveryOf"`
	LastStatusCode *int32            `json:"lastStatusCode"`
	Attempts       []attemptResponse `json:"attempts"`
	CreatedAt      string            `json:"createdAt"`
	CompletedAt    *string           `json:"completedAt"`
}

type attemptResponse struct {
	Attempt    int32   `json:"attempt"`
	StatusCode *int32  `json:"statusCode"` // null: no HTTP answer
	LatencyMs  int32   `json:"latencyMs"`
	Error      *string `json:"error"`
	At         string  `json:"at"`
}

// listWebhookDeliveries pages through an endpoint's deliveries, newest first, each with every attempt.
func (h *handler) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "webhookId")
	if err != nil {
		return err
	}
	page, err := parsePage(r.URL.Query())
	if err != nil {
		return err
	}
	org := principalOf(r.Context()).OrgID
	if _, err := h.db.GetWebhookEndpoint(r.Context(), db.GetWebhookEndpointParams{OrgID: org, ID: id.UUID}); err != nil {
		if db.IsNotFound(err) {
			return newError(codeWebhookNotFound, "webhook %s not found", id)
		}
		return err
	}
	total, err := h.db.CountWebhookDeliveries(r.Context(), id.UUID)
	if err != nil {
		return err
	}
	rows, err := h.db.ListWebhookDeliveries(r.Context(), db.ListWebhookDeliveriesParams{EndpointID: id.UUID,
		MaxRows: int32(page.size), Skip: page.offset()})
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, len(rows))
	for i, d := range rows {
		ids[i] = d.ID
	}
	attempts, err := h.db.ListWebhookAttempts(r.Context(), ids)
	if err != nil {
		return err
	}
	v := versionOf(r.Context())
	byDelivery := map[uuid.UUID][]attemptResponse{}
	for _, a := range attempts {
		byDelivery[a.DeliveryID] = append(byDelivery[a.DeliveryID], attemptResponse{Attempt: a.Attempt, StatusCode: a.StatusCode,
			LatencyMs: a.LatencyMs, Error: a.Error, At: v.formatTime(a.At, h.loc)})
	}
	items := make([]deliveryResponse, len(rows))
	for i, d := range rows {
		items[i] = h.toDeliveryResponse(r, db.WebhookDelivery{ID: d.ID, EventID: d.EventID, EndpointID: d.EndpointID,
			RedeliveryOf: d.RedeliveryOf, Manual: d.Manual, Status: d.Status, Attempts: d.Attempts, LastStatusCode: d.LastStatusCode,
			CreatedAt: d.CreatedAt, CompletedAt: d.CompletedAt}, d.EventType, byDelivery[d.ID])
	}
	okList(h, w, page, total, items)
	return nil
}

func (h *handler) toDeliveryResponse(r *http.Request, d db.WebhookDelivery, eventType string, attempts []attemptResponse) deliveryResponse {
	v := versionOf(r.Context())
	out := deliveryResponse{ID: d.ID.String(), EventID: d.EventID, EventType: eventType, WebhookID: d.EndpointID.String(),
		Status: d.Status, Redelivery: d.Manual, LastStatusCode: d.LastStatusCode, Attempts: attempts,
		CreatedAt: v.formatTime(d.CreatedAt, h.loc)}
	if out.Attempts == nil {
		out.Attempts = []attemptResponse{}
	}
	if d.RedeliveryOf != nil {
		s := d.RedeliveryOf.String()
		out.RedeliveryOf = &s
	}
	if d.CompletedAt != nil {
		s := v.formatTime(*d.CompletedAt, h.loc)
		out.CompletedAt = &s
	}
	return out
}

// redeliverWebhook sends a delivery's event again to its endpoint: a new delivery, the same event id.
func (h *handler) redeliverWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "deliveryId")
	if err != nil {
		return err
	}
	prev, err := h.db.GetWebhookDelivery(r.Context(), id.UUID)
	if db.IsNotFound(err) || (err == nil && prev.OrgID != principalOf(r.Context()).OrgID) {
		return newError(codeWebhookNotFound, "webhook delivery %s not found", id)
	}
	if err != nil {
		return err
	}
	if h.webhooks == nil {
		return errors.New("webhook deliveries are not configured")
	}
	del, err := h.db.CreateRedelivery(r.Context(), db.CreateRedeliveryParams{ID: uuid.New(), Of: id.UUID})
	if err != nil {
		return err
	}
	// A failed start leaves the new delivery PENDING without a workflow; the client retries the redelivery.
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	if err := h.webhooks.StartWebhookDelivery(ctx, del.ID); err != nil {
		return err
	}
	h.ok(w, h.toDeliveryResponse(r, del, prev.EventType, nil))
	return nil
}
