// Package workflows holds the deterministic orchestration of badged: the issuance workflow and its names.
//
// Its code is a contract with the histories of open runs: a change that alters the commands a run issues (its
// constants included) takes its new path only behind workflow.GetVersion, and the recorded histories in
// temporal/testdata/histories must still replay (README, "Deploys without draining").
//
// It may import activities (the steps' types and methods) and internal/errcode, never db or anything that does I/O:
// workflow code must stay deterministic.
package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// TaskQueue is the one task queue of the issuance workers.
const TaskQueue = "badged-issuance"

// IssuanceWorkflowID is derived from the idempotency scope (key mode, org, badge, key), so a retried start after a
// crash between the database commit and the workflow start finds the same workflow. The key is hashed: it is
// client text of up to 300 characters. Test and live keys have separate scopes, like the issuances table.
func IssuanceWorkflowID(mode string, org, badge uuid.UUID, idempotencyKey string) string {
	sum := sha256.Sum256([]byte(idempotencyKey))
	return "issuance/" + mode + "/" + org.String() + "/" + badge.String() + "/" + hex.EncodeToString(sum[:16])
}

// Search attributes every issuance workflow carries, so operators find it in the Temporal UI by issuance, org
// or badge. The embedded server registers them at start; a cluster needs them registered once (README).
var (
	IssuanceIDKey     = temporal.NewSearchAttributeKeyKeyword("IssuanceId")
	OrgIDKey          = temporal.NewSearchAttributeKeyKeyword("OrgId")
	BadgeIDKey        = temporal.NewSearchAttributeKeyKeyword("BadgeId")
	APIVersionKey     = temporal.NewSearchAttributeKeyKeyword("ApiVersion")
	RecipientCountKey = temporal.NewSearchAttributeKeyInt64("RecipientCount")
)

// SearchAttributes returns the search attributes of an issuance workflow.
func SearchAttributes(in IssueBadgeInput) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		IssuanceIDKey.ValueSet(in.IssuanceID.String()),
		OrgIDKey.ValueSet(in.OrgID.String()),
		BadgeIDKey.ValueSet(in.BadgeID.String()),
		APIVersionKey.ValueSet(fmt.Sprintf("v%d", in.APIVersion)),
		RecipientCountKey.ValueSet(int64(in.RecipientCount)),
	)
}

// StartSearchAttributes are the search attributes an issuance workflow (or a re-drive) starts with: those of
// SearchAttributes, its mode, and Stage accepted since now (the workflow moves it on, operator.go).
func StartSearchAttributes(in IssueBadgeInput, mode string, now time.Time) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		IssuanceIDKey.ValueSet(in.IssuanceID.String()),
		OrgIDKey.ValueSet(in.OrgID.String()),
		BadgeIDKey.ValueSet(in.BadgeID.String()),
		APIVersionKey.ValueSet(fmt.Sprintf("v%d", in.APIVersion)),
		RecipientCountKey.ValueSet(int64(in.RecipientCount)),
		ModeKey.ValueSet(mode),
		StageKey.ValueSet(StageAccepted),
		StageSinceKey.ValueSet(now),
	)
}

// SearchAttributeTypes are the custom search attributes of every issuance workflow with their index types, as a
// server must register them (the embedded server does at start; a cluster once, with the operator CLI).
func SearchAttributeTypes() map[string]enums.IndexedValueType {
	return map[string]enums.IndexedValueType{
		IssuanceIDKey.GetName():     enums.INDEXED_VALUE_TYPE_KEYWORD,
		OrgIDKey.GetName():          enums.INDEXED_VALUE_TYPE_KEYWORD,
		BadgeIDKey.GetName():        enums.INDEXED_VALUE_TYPE_KEYWORD,
		APIVersionKey.GetName():     enums.INDEXED_VALUE_TYPE_KEYWORD,
		RecipientCountKey.GetName(): enums.INDEXED_VALUE_TYPE_INT,
		// The operator's (operator.go): what stage a run is in since when, and what failed.
		StageKey.GetName():       enums.INDEXED_VALUE_TYPE_KEYWORD,
		StageSinceKey.GetName():  enums.INDEXED_VALUE_TYPE_DATETIME,
		IssuedCountKey.GetName(): enums.INDEXED_VALUE_TYPE_INT,
		FailedCountKey.GetName(): enums.INDEXED_VALUE_TYPE_INT,
		FailedCodesKey.GetName(): enums.INDEXED_VALUE_TYPE_KEYWORD_LIST,
		ModeKey.GetName():        enums.INDEXED_VALUE_TYPE_KEYWORD,
	}
}
