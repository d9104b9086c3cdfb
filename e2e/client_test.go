package e2e

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	badged "github.com/badged/badged/client/v3"
	"github.com/badged/badged/db"
)

// TestClient_IssuanceFlowV3 is the contract's typical flow through the generated v3 client (client/v3), the API's
// first real client: upload an image, create a program and a badge, issue, poll until COMPLETED, list the
// assertions and read one; plus the typed error answers of a replay conflict and an unknown issuance.
func TestClient_IssuanceFlowV3(t *testing.T) {
	s := newStack(t)
	ctx := t.Context()
	org, err := s.DB.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: "Client Org", Credits: 10})
	require.NoError(t, err)
	key := s.mustKey(t, org, "live")
	c, err := badged.NewClientWithResponses(s.BaseURL+"/public/v3", badged.WithRequestEditorFn(
		func(_ context.Context, req *http.Request) error { req.Header.Set("X-API-KEY", key); return nil }))
	require.NoError(t, err)

	orgRes, err := c.GetOrganizationWithResponse(ctx)
	require.NoError(t, err)
	require.NotNil(t, orgRes.JSON200, "%s", orgRes.Body)
	require.Equal(t, "Client Org", orgRes.JSON200.Data.Name)
	require.Equal(t, badged.ORGMANAGER, orgRes.JSON200.Data.RoleCode)

	body, contentType := pngUpload(t)
	img, err := c.UploadImageWithBodyWithResponse(ctx, contentType, body)
	require.NoError(t, err)
	require.NotNil(t, img.JSON200, "%s", img.Body)
	imageID := img.JSON200.Data.Id

	prog, err := c.CreateProgramWithResponse(ctx, badged.ProgramCreate{Name: "Client program",
		CategoryCode: badged.EDUCATION, ImageId: imageID})
	require.NoError(t, err)
	require.NotNil(t, prog.JSON200, "%s", prog.Body)
	programID := prog.JSON200.Data.Id

	var skill badged.SkillInput
	require.NoError(t, skill.FromCustomSkillInput(badged.CustomSkillInput{SourceType: badged.CustomSkillInputSourceTypeCUSTOM, SkillName: "Go"}))
	months := 12
	badge, err := c.CreateBadgeWithResponse(ctx, badged.BadgeCreate{Name: "Client badge", Description: "Awarded on completion",
		CategoryCode: badged.BadgeCategoryCOMPLETION, ImageId: imageID, ProgramIds: &[]badged.UUID{programID},
		Criteria:         []badged.Criterion{{Category: badged.CriterionCategoryCOMPLETION, Value: "Finish all modules"}},
		Skills:           []badged.SkillInput{skill},
		ExpirationPolicy: &badged.ExpirationPolicyInput{RelativeExpirationMonths: &months}})
	require.NoError(t, err)
	require.NotNil(t, badge.JSON200, "%s", badge.Body)
	require.Equal(t, badged.PUBLISHED, badge.JSON200.Data.PublishStatusCode)
	badgeID := badge.JSON200.Data.Id

	emails := []string{"client-0@example.com", "client-1@example.com"}
	sourced := "hr-4711"
	req := badged.IssuanceRequest{ProgramId: programID, Recipients: []badged.RecipientInput{
		{Name: "수령인 0", Email: &emails[0], ReceiveType: badged.EMAIL, SourcedId: &sourced},
		{Name: "수령인 1", Email: &emails[1], ReceiveType: badged.EMAIL},
	}}
	params := &badged.CreateIssuanceParams{IdempotencyKey: "client-" + uuid.NewString()}
	created, err := c.CreateIssuanceWithResponse(ctx, badgeID, params, req)
	require.NoError(t, err)
	require.NotNil(t, created.JSON200, "%s", created.Body)
	iss, err := created.JSON200.AsIssuanceResponse()
	require.NoError(t, err)
	require.Equal(t, badged.IssuanceProcessingStatusPROCESSING, iss.Data.ProcessingStatus)
	require.EqualValues(t, 2, iss.Data.AssertionCount)

	// The same key with another request is a typed 409.
	other := req
	other.Recipients = req.Recipients[:1]
	conflict, err := c.CreateIssuanceWithResponse(ctx, badgeID, params, other)
	require.NoError(t, err)
	require.NotNil(t, conflict.JSON409, "%d %s", conflict.StatusCode(), conflict.Body)
	require.Equal(t, "ISS057", conflict.JSON409.Error.Code)

	done := waitIssuanceClient(t, c, iss.Data.Id, issueTimeout)
	require.Equal(t, badged.IssuanceProcessingStatusCOMPLETED, done.ProcessingStatus)

	list, err := c.ListAssertionsWithResponse(ctx, &badged.ListAssertionsParams{IssuanceId: &iss.Data.Id,
		Sort: &[]string{"createdAt,asc"}})
	require.NoError(t, err)
	require.NotNil(t, list.JSON200, "%s", list.Body)
	items := list.JSON200.Data.Items
	require.Len(t, items, 2)
	require.EqualValues(t, 2, list.JSON200.Data.Pagination.TotalElement)
	for _, a := range items {
		require.Equal(t, badged.AssertionStateRECEIVED, a.StateCode, "%+v", a)
		require.Nil(t, a.ErrorCode)
		require.Equal(t, badgeID, a.Badge.Id)
		require.NotNil(t, a.ExpiredAt, "a relative policy gives an expiry")
	}
	bySourced, err := c.ListAssertionsWithResponse(ctx, &badged.ListAssertionsParams{SourcedId: &sourced})
	require.NoError(t, err)
	require.NotNil(t, bySourced.JSON200, "%s", bySourced.Body)
	require.Len(t, bySourced.JSON200.Data.Items, 1)
	require.Equal(t, emails[0], *bySourced.JSON200.Data.Items[0].Recipient.Email)

	detail, err := c.GetAssertionWithResponse(ctx, items[0].Id)
	require.NoError(t, err)
	require.NotNil(t, detail.JSON200, "%s", detail.Body)
	require.NotNil(t, detail.JSON200.Data.CredentialUrl)
	require.Equal(t, s.BaseURL+"/credentials/"+items[0].Id.String(), *detail.JSON200.Data.CredentialUrl)
	require.NotNil(t, detail.JSON200.Data.OpenbadgeImageUrl)

	missing, err := c.GetIssuanceWithResponse(ctx, uuid.New())
	require.NoError(t, err)
	require.NotNil(t, missing.JSON404, "%d %s", missing.StatusCode(), missing.Body)
	require.Equal(t, "ISS001", missing.JSON404.Error.Code)
}

// waitIssuanceClient polls the issuance through the client until it leaves PROCESSING.
func waitIssuanceClient(t *testing.T, c *badged.ClientWithResponses, id badged.UUID, timeout time.Duration) badged.Issuance {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		res, err := c.GetIssuanceWithResponse(t.Context(), id)
		require.NoError(t, err)
		require.NotNil(t, res.JSON200, "%s", res.Body)
		if res.JSON200.Data.ProcessingStatus != badged.IssuanceProcessingStatusPROCESSING {
			return res.JSON200.Data
		}
		require.True(t, time.Now().Before(deadline), "issuance %s still PROCESSING after %s", id, timeout)
		time.Sleep(100 * time.Millisecond)
	}
}

// pngUpload is a multipart body with a small PNG in the part named image.
func pngUpload(t *testing.T) (*bytes.Buffer, string) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.SetNRGBA(0, 0, color.NRGBA{A: 255})
	var pngData, body bytes.Buffer
	require.NoError(t, png.Encode(&pngData, img))
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("image", "badge.png")
	require.NoError(t, err)
	_, err = part.Write(pngData.Bytes())
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return &body, w.FormDataContentType()
}
