// Package workflows holds the deterministic orchestration of badged: the issuance workflow and its names.
package workflows

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"
)

// TaskQueue is the one task queue of the issuance workers.
const TaskQueue = "badged-issuance"

// IssuanceWorkflowID is derived from the idempotency scope (org, badge, key), so a retried start after a crash
// between the database commit and the workflow start finds the same workflow. The key is hashed: it is client
// text of up to 300 characters.
func IssuanceWorkflowID(org, badge uuid.UUID, idempotencyKey string) string {
	sum := sha256.Sum256([]byte(idempotencyKey))
	return "issuance/" + org.String() + "/" + badge.String() + "/" + hex.EncodeToString(sum[:16])
}
