package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/blob"
)

// fixture is one organization with a badge (its image in the blob store) on a fresh database.
type fixture struct {
	DB      *db.DB
	Blob    *blob.Local
	OrgID   uuid.UUID
	BadgeID uuid.UUID
	Program uuid.UUID
	ImageID uuid.UUID
	acts    *Activities
}

const fixtureCredits = 10

func mustFixture(tb testing.TB) *fixture {
	tb.Helper()
	ctx := context.Background()
	d := dbtest.New(tb)
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	f := &fixture{DB: d, Blob: store, OrgID: uuid.New(), BadgeID: uuid.New(), Program: uuid.New(), ImageID: uuid.New()}
	_, err = d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: f.OrgID, Name: "Badged Academy", Credits: fixtureCredits})
	require.NoError(tb, err)
	_, err = d.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: f.ImageID, OrgID: f.OrgID, ContentType: "image/png",
		Ext: "png", Width: 1, Height: 1, SizeBytes: 4})
	require.NoError(tb, err)
	require.NoError(tb, store.Put(ctx, "media/"+f.ImageID.String()+"/original.png", []byte("\x89PNG"), "image/png"))
	_, err = d.CreateProgram(ctx, db.CreateProgramParams{ID: f.Program, OrgID: f.OrgID, Name: "Program",
		CategoryCode: "ETC", ImageID: f.ImageID})
	require.NoError(tb, err)
	_, err = d.CreateBadge(ctx, db.CreateBadgeParams{ID: f.BadgeID, OrgID: f.OrgID, Name: "Go Expert",
		Description: "Writes Go", Criteria: json.RawMessage(`[{"category":"ETC","value":"Write Go"}]`),
		CategoryCode: "ETC", ImageID: f.ImageID, Skills: json.RawMessage(`[]`)})
	require.NoError(tb, err)
	f.acts = &Activities{DB: d, Blob: store, Policy: mustPolicy(tb), Log: quietLog(), Location: time.UTC}
	return f
}

// recipient is one row of an issuance; empty fields get defaults.
type recipient struct {
	Name, ReceiveType  string
	Email, Phone, Src  *string
	State, Step        string
	ExpiredAt          *time.Time
	Seq                int
	explicitNoIdentity bool
}

func ptr[T any](v T) *T { return &v }

// mustIssuance inserts an issuance of the fixture's badge and its assertions in seq order, debiting nothing (the
// credits of the org stay fixtureCredits, so refunds show as fixtureCredits+n).
func (f *fixture) mustIssuance(tb testing.TB, mode string, apiVersion int16, rs ...recipient) (uuid.UUID, []uuid.UUID) {
	tb.Helper()
	ctx := context.Background()
	iss := uuid.New()
	now := time.Now().UTC().Truncate(time.Second)
	_, err := f.DB.CreateIssuance(ctx, db.CreateIssuanceParams{ID: iss, OrgID: f.OrgID, BadgeID: f.BadgeID,
		ProgramID: f.Program, ApiVersion: apiVersion, Mode: mode, IdempotencyKey: iss.String(), RequestHash: []byte{1},
		IssuedAt: now, AssertionCount: int32(len(rs)), CreditsDebited: int32(len(rs)), WorkflowID: "wf-" + iss.String()})
	require.NoError(tb, err)
	rows := make([]db.InsertAssertionsParams, len(rs))
	ids := make([]uuid.UUID, len(rs))
	for i, r := range rs {
		ids[i] = uuid.New()
		if r.Name == "" {
			r.Name = "Recipient " + fmt.Sprint(i)
		}
		if r.ReceiveType == "" {
			r.ReceiveType = "EMAIL"
		}
		if r.Email == nil && r.Phone == nil && r.Src == nil && !r.explicitNoIdentity {
			r.Email = ptr(fmt.Sprintf("r%d-%s@example.com", i, iss.String()[:8]))
		}
		seq := r.Seq
		if seq == 0 {
			seq = i
		}
		rows[i] = db.InsertAssertionsParams{ID: ids[i], OrgID: f.OrgID, IssuanceID: iss, BadgeID: f.BadgeID,
			ProgramID: f.Program, Mode: mode, ApiVersion: apiVersion, Seq: int32(seq),
			SerialNumber: "S-" + ids[i].String(), RecipientName: r.Name, RecipientEmail: r.Email,
			RecipientPhone: r.Phone, RecipientSourcedID: r.Src, ReceiveType: r.ReceiveType, IssuedAt: now,
			ExpiredAt: r.ExpiredAt, CreatedAt: now}
		rs[i] = r
	}
	n, err := f.DB.InsertAssertions(ctx, rows)
	require.NoError(tb, err)
	require.EqualValues(tb, len(rs), n)
	for i, r := range rs {
		// No query sets an arbitrary state or step: this is test setup only.
		if r.State != "" || r.Step != "" {
			_, err := f.DB.Pool.Exec(ctx, `UPDATE assertions SET state = COALESCE(NULLIF($2, ''), state),
				step = COALESCE(NULLIF($3, ''), step) WHERE id = $1`, ids[i], r.State, r.Step)
			require.NoError(tb, err)
		}
	}
	return iss, ids
}

func (f *fixture) mustAssertion(tb testing.TB, id uuid.UUID) db.Assertion {
	tb.Helper()
	as, err := f.DB.GetAssertionByID(context.Background(), id)
	require.NoError(tb, err)
	return as
}

func (f *fixture) credits(tb testing.TB) int64 {
	tb.Helper()
	org, err := f.DB.GetOrganization(context.Background(), f.OrgID)
	require.NoError(tb, err)
	return org.Credits
}
