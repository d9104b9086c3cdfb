package api

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

// TestNormalizedJSONIsMarshal holds normalizedJSON to the json.Marshal of the normalized request it replaced: the
// same bytes (so the same request hash) for recipients of every shape, hostile text and evidence included.
func TestNormalizedJSONIsMarshal(t *testing.T) {
	texts := []string{"", "R 1", "minji@example.com", "+821012345678", "김민지", "a\"b\\c", "<script>&amp;", "tab\there",
		"\u2028\u2029", "\x7f", "\xff\xfe", "emoji 😀", "ſ", "é"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return texts[rng.IntN(len(texts))] }
	ptr := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		s := pick()
		return &s
	}
	for round := range 200 {
		req := issuanceRequest{ProgramID: uuid.New()}
		for range rng.IntN(5) {
			r := recipient{Name: pick(), Email: ptr(), PhoneNumber: ptr(), SourcedID: ptr(), ReceiveType: pick()}
			if rng.IntN(4) == 0 {
				r.Evidence = []credential.Evidence{{URL: "https://e.example/" + pick(), Name: pick(), Narrative: pick()}}
			}
			req.Recipients = append(req.Recipients, r)
		}
		if round%3 == 0 {
			at := time.Date(2025, 3, 1, 9, 0, 0, rng.IntN(2)*123456789, time.FixedZone("", 9*3600))
			req.IssuedAt = &at
		}
		norm := struct {
			Recipients []recipient `json:"recipients"`
			ProgramID  uuid.UUID   `json:"programId"`
			IssuedAt   *string     `json:"issuedAt"`
		}{Recipients: req.Recipients, ProgramID: req.ProgramID}
		if req.IssuedAt != nil {
			s := req.IssuedAt.UTC().Format(time.RFC3339Nano)
			norm.IssuedAt = &s
		}
		want, err := json.Marshal(norm)
		require.NoError(t, err)
		got, err := req.normalizedJSON()
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}
