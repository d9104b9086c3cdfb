package earner

import (
	"time"

	"github.com/badged/badged/db"
)

// Section is where the collection shows a credential.
type Section int

// The sections.
const (
	Hidden   Section = iota // not shown at all
	Active                  // the earner's badges
	Inactive                // revoked and expired, in their own labelled section
)

// SectionOf is the display filter of the spec ("the viewer display filter for the user's badges") applied to one
// credential issued through apiVersion: v2 shows ISSUED, RECEIVED and REISSUED; v3 shows ISSUED and RECEIVED and
// leaves REISSUED out, as a replaced original, so the original never stands beside its replacement. Revoked and
// expired credentials (EXPIRED, or ISSUED/RECEIVED past their expiry before the expiry job rewrote the row) go to
// the inactive section; PROCESSING and FAILED have no credential to show.
func SectionOf(apiVersion int16, state string, expiredAt *time.Time, now time.Time) Section {
	switch db.AssertionState(state) {
	case db.AssertionIssued, db.AssertionReceived:
		if expiredAt != nil && !expiredAt.After(now) {
			return Inactive
		}
		return Active
	case db.AssertionReissued:
		if apiVersion == 2 {
			return Active
		}
		return Hidden
	case db.AssertionRevoked, db.AssertionExpired:
		return Inactive
	}
	return Hidden
}
