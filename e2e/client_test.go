package e2e

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
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
	require.Equal(t, badged.OrganizationRoleCodeORGMANAGER, orgRes.JSON200.Data.RoleCode)

	img, err := c.UploadImage(ctx, "badge.png", pngFile(t))
	require.NoError(t, err)
	imageID := img.Id

	prog, err := c.CreateProgramWithResponse(ctx, badged.ProgramCreate{Name: "Client program",
		CategoryCode: badged.ProgramCategoryEDUCATION, ImageId: imageID})
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
	require.Equal(t, badged.PublishStatusPUBLISHED, badge.JSON200.Data.PublishStatusCode)
	badgeID := badge.JSON200.Data.Id

	emails := []string{"client-0@example.com", "client-1@example.com"}
	sourced := "hr-4711"
	req := badged.IssuanceRequest{ProgramId: programID, Recipients: []badged.RecipientInput{
		{Name: "수령인 0", Email: &emails[0], ReceiveType: badged.ReceiveTypeEMAIL, SourcedId: &sourced},
		{Name: "수령인 1", Email: &emails[1], ReceiveType: badged.ReceiveTypeEMAIL},
	}}
	idem := "client-" + uuid.NewString()
	dry, err := c.DryRunIssuance(ctx, badgeID, idem, req)
	require.NoError(t, err)
	require.True(t, dry.WouldSucceed, "%+v", dry.Problems)
	require.Equal(t, 2, dry.RecipientCount)
	iss, err := c.IssueBadge(ctx, badgeID, idem, req)
	require.NoError(t, err)
	require.Equal(t, badged.IssuanceProcessingStatusPROCESSING, iss.ProcessingStatus)
	require.EqualValues(t, 2, iss.AssertionCount)

	// The same key with another request is a typed 409 (and the generated JSON409 still holds it).
	other := req
	other.Recipients = req.Recipients[:1]
	_, err = c.IssueBadge(ctx, badgeID, idem, other)
	var apiErr *badged.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ISS057", apiErr.Code)
	require.Equal(t, http.StatusConflict, apiErr.StatusCode)
	conflict, err := c.CreateIssuanceWithResponse(ctx, badgeID, &badged.CreateIssuanceParams{IdempotencyKey: idem}, other)
	require.NoError(t, err)
	require.NotNil(t, conflict.JSON409, "%d %s", conflict.StatusCode(), conflict.Body)
	require.Equal(t, "ISS057", conflict.JSON409.Error.Code)

	waitCtx, cancel := context.WithTimeout(ctx, issueTimeout)
	defer cancel()
	done, err := c.WaitIssuance(waitCtx, iss.Id, badged.WaitOptions{Interval: 100 * time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, badged.IssuanceProcessingStatusCOMPLETED, done.ProcessingStatus)

	list, err := c.ListAssertionsWithResponse(ctx, &badged.ListAssertionsParams{IssuanceId: &iss.Id,
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

// pngFile is a small PNG image.
func pngFile(t *testing.T) *bytes.Buffer {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.SetNRGBA(0, 0, color.NRGBA{A: 255})
	var pngData bytes.Buffer
	require.NoError(t, png.Encode(&pngData, img))
	return &pngData
}

// TestClient_OwnModule: client/v3 is a module of its own, and the packages of its build come from its module and
// three small ones, none of the server's: an integrator who imports it downloads only the client.
func TestClient_OwnModule(t *testing.T) {
	out, err := exec.Command("go", "-C", "../client/v3", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	mods := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		mods[m] = true
	}
	require.Equal(t, map[string]bool{"github.com/badged/badged/client/v3": true, "github.com/oapi-codegen/runtime": true,
		"github.com/apapsch/go-jsonmerge/v2": true, "github.com/google/uuid": true}, mods)
	gomod, err := os.ReadFile("../client/v3/go.mod")
	require.NoError(t, err)
	require.Contains(t, string(gomod), "module github.com/badged/badged/client/v3\n")
}

// TestClient_EnumConstants: every generated enum constant is named after its type (ReceiveTypeEMAIL, never a bare
// EMAIL that another enum's value could take), and none stands for null ("<nil>").
func TestClient_EnumConstants(t *testing.T) {
	src, err := os.ReadFile("../client/v3/client.gen.go")
	require.NoError(t, err)
	consts := regexp.MustCompile(`(?m)^\t(\w+)\s+(\w+) = "([^"]*)"$`).FindAllStringSubmatch(string(src), -1)
	require.Greater(t, len(consts), 50)
	for _, c := range consts {
		name, typ, value := c[1], c[2], c[3]
		require.True(t, strings.HasPrefix(name, typ), "constant %s of type %s is not named after its type", name, typ)
		require.NotEqual(t, "<nil>", value, "constant %s", name)
	}
}
