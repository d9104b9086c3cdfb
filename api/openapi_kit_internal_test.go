package api

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/webhook"
)

// loadDoc renders, loads and validates version v's document, and also returns it decoded as plain JSON.
func loadDoc(t *testing.T, v version) (*openapi3.T, map[string]any) {
	t.Helper()
	raw, err := OpenAPIDocument(int(v))
	require.NoError(t, err)
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	var plain map[string]any
	require.NoError(t, json.Unmarshal(raw, &plain))
	return doc, plain
}

// TestOpenAPIDocument_WhatAnIntegratorReads: the document says what a reader needs beyond the operations (license,
// tag descriptions, the headers every answer carries) and holds no leftovers (pending marks, null enum members
// that generate a "<nil>" constant, schemas of another version).
func TestOpenAPIDocument_WhatAnIntegratorReads(t *testing.T) {
	for _, v := range versions {
		t.Run(v.prefix(), func(t *testing.T) {
			doc, plain := loadDoc(t, v)
			require.NotNil(t, doc.Info.License)
			require.NotEmpty(t, doc.Info.License.Name)
			for _, tag := range doc.Tags {
				require.NotEmpty(t, tag.Description, "tag %s", tag.Name)
			}
			raw, _ := json.Marshal(plain)
			for _, leftover := range []string{"x-pending", "pending:", "dry-run branch"} {
				require.False(t, strings.Contains(strings.ToLower(string(raw)), leftover), "leftover %q", leftover)
			}
			walkJSON(plain, func(m map[string]any) {
				if enum, ok := m["enum"].([]any); ok {
					require.NotContains(t, enum, nil, "a null enum member becomes a \"<nil>\" constant in generated clients")
				}
			})
			for path, item := range doc.Paths.Map() {
				for method, op := range item.Operations() {
					for status, res := range op.Responses.Map() {
						require.Contains(t, res.Value.Headers, "X-Request-Id", "%s %s %s", method, path, status)
						if status == "429" {
							h := res.Value.Headers["Retry-After"]
							require.NotNil(t, h, "%s %s 429 without Retry-After", method, path)
							require.True(t, h.Value.Required)
						}
					}
					if op.Security == nil || slices.ContainsFunc(*op.Security, func(r openapi3.SecurityRequirement) bool { return r["apiKey"] != nil }) { // behind X-API-KEY: rate limited
						require.NotNil(t, op.Responses.Value("429"), "%s %s behind a key has no 429", method, path)
						for _, res := range op.Responses.Map() {
							require.Contains(t, res.Value.Headers, "RateLimit-Limit", "%s %s", method, path)
							require.Contains(t, res.Value.Headers, "RateLimit-Remaining", "%s %s", method, path)
						}
					}
				}
			}
			// every component is used: the v2 document holds none of the v3 extension's schemas
			used := map[string]bool{}
			walkJSON(plain, func(m map[string]any) {
				if ref, ok := m["$ref"].(string); ok {
					used[ref] = true
				}
			})
			for name := range doc.Components.Schemas {
				require.True(t, used["#/components/schemas/"+name], "unused schema %s", name)
			}
			if v == v2 {
				require.NotContains(t, plain, "webhooks")
				for name := range doc.Components.Schemas {
					require.NotContains(t, name, "Webhook", "v3-only schema %s in the v2 document", name)
				}
			}
		})
	}
}

// walkJSON calls visit on every object of a decoded JSON value.
func walkJSON(node any, visit func(map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		visit(n)
		for _, v := range n {
			walkJSON(v, visit)
		}
	case []any:
		for _, v := range n {
			walkJSON(v, visit)
		}
	}
}

// TestOpenAPIDocument_WebhookPayloads: v3's webhooks section has every event type of internal/webhook, and the
// bytes the service sends for each (webhook.Body of the data the service records) validate against its schema.
func TestOpenAPIDocument_WebhookPayloads(t *testing.T) {
	doc, _ := loadDoc(t, v3)
	id, replacement, code := uuid.New(), uuid.New(), "DUPLICATE_ISSUANCE"
	issuance := webhook.IssuanceData{IssuanceID: id, BadgeID: id, ProgramID: id, ProcessingStatus: "COMPLETED",
		AssertionCount: 3, Mode: "live", CountsByState: map[string]int{"ISSUED": 2, "FAILED": 1},
		CountsByErrorCode: map[string]int{code: 1}}
	assertion := webhook.AssertionData{AssertionID: id, IssuanceID: id, BadgeID: id, ProgramID: id, StateCode: "REVOKED", Mode: "test"}
	reissued := assertion
	reissued.StateCode, reissued.ReissuedAs, reissued.ErrorCode = "REISSUED", &replacement, &code
	days, expires := int32(7), time.Now().Add(7*24*time.Hour).UTC().Format(time.RFC3339)
	expiring := assertion
	expiring.StateCode, expiring.DaysBefore, expiring.ExpiredAt = "ISSUED", &days, &expires
	claimed := assertion
	claimed.StateCode, claimed.Claimed = "RECEIVED", &webhook.ClaimedCopy{CredentialID: "urn:uuid:" + replacement.String(),
		Format: "jwt_vc_json", HolderDID: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", ClaimedAt: time.Now().UTC()}
	renewed := assertion
	renewed.StateCode, renewed.RenewedAs = "REISSUED", &replacement
	data := map[string]any{
		webhook.IssuanceCompleted: issuance, webhook.IssuanceFailed: issuance,
		webhook.AssertionRevoked: assertion, webhook.AssertionReissued: reissued, webhook.AssertionExpired: assertion, webhook.AssertionExpiring: expiring,
		webhook.AssertionClaimed: claimed, webhook.AssertionRenewed: renewed,
	}
	require.Len(t, doc.Webhooks, len(webhook.Types))
	for _, typ := range webhook.Types {
		item := doc.Webhooks[typ]
		require.NotNil(t, item, "webhooks has no %s", typ)
		require.NotNil(t, item.Post)
		names := map[string]bool{}
		for _, p := range item.Post.Parameters {
			names[p.Value.Name] = p.Value.In == "header" && p.Value.Required
		}
		require.Equal(t, map[string]bool{webhook.HeaderID: true, webhook.HeaderTimestamp: true, webhook.HeaderSignature: true}, names)
		schema := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
		d, err := json.Marshal(data[typ])
		require.NoError(t, err)
		body, err := webhook.Body(webhook.NewEventID(), typ, time.Now(), d)
		require.NoError(t, err)
		var payload any
		require.NoError(t, json.Unmarshal(body, &payload))
		require.NoError(t, schema.VisitJSON(payload, openapi3.EnableJSONSchema2020()), "%s: %s", typ, body)
		// and another event's type is not accepted under this one's schema
		wrong := payload.(map[string]any)
		wrong["type"] = "badge.created"
		require.Error(t, schema.VisitJSON(wrong, openapi3.EnableJSONSchema2020()))
	}
}

// TestOpenAPIDocument_RefusesWhatTheServerRefuses: the values the server refuses that the document used to allow
// (events: null, a page beyond the server's maximum, repeated linked ids) are refused by the document too.
func TestOpenAPIDocument_RefusesWhatTheServerRefuses(t *testing.T) {
	for _, v := range versions {
		t.Run(v.prefix(), func(t *testing.T) {
			doc, _ := loadDoc(t, v)
			visit := func(s *openapi3.Schema, value string) error {
				var val any
				require.NoError(t, json.Unmarshal([]byte(value), &val))
				return s.VisitJSON(val, openapi3.EnableJSONSchema2020())
			}
			page := doc.Components.Parameters["page"].Value.Schema.Value
			require.NoError(t, visit(page, `1000000`))
			require.Error(t, visit(page, `1000001`), "the server refuses page > %d", maxOffset)

			id := `"` + uuid.NewString() + `"`
			badge := doc.Components.Schemas["BadgeUpdate"].Value
			require.NoError(t, visit(badge, `{"programIds":[`+id+`]}`))
			require.Error(t, visit(badge, `{"programIds":[`+id+`,`+id+`]}`))
			program := doc.Components.Schemas["ProgramUpdate"].Value
			require.Error(t, visit(program, `{"badgeIds":[`+id+`,`+id+`]}`))

			if v == v3 {
				create := doc.Paths.Find("/webhooks").Post.RequestBody.Value.Content.Get("application/json").Schema.Value
				require.NoError(t, visit(create, `{"url":"https://example.com/hook","events":[]}`))
				require.Error(t, visit(create, `{"url":"https://example.com/hook","events":null}`))
			}
		})
	}
}
