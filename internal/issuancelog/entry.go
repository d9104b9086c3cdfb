package issuancelog

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Entry is what the log records of one signed credential: small, canonical, and enough for an organization to
// recognise every credential its key signed (the id says where it is served, the digest pins the exact bytes).
type Entry struct {
	CredentialID string    // the credential's id (its URL, or urn:uuid: for a wallet copy)
	SHA256       [32]byte  // SHA-256 of the signed credential's bytes exactly as served
	Type         string    // the credential's most specific type, e.g. OpenBadgeCredential
	ValidFrom    time.Time // the credential's validFrom
}

// entryJSON fixes the record's field order; Marshal is the one canonical form (UTF-8 JSON, no spaces, fields in
// this order, validFrom in RFC 3339 UTC to the second, the digest in lower-case hex).
type entryJSON struct {
	ID        string `json:"id"`
	SHA256    string `json:"sha256"`
	Type      string `json:"type"`
	ValidFrom string `json:"validFrom"`
}

// CredentialType is the type the pipeline's credentials are logged under (credential.Build makes
// OpenBadgeCredentials; a wallet copy is one too).
const CredentialType = "OpenBadgeCredential"

// MaxEntrySize bounds an entry: C2SP entry bundles prefix each entry with a 16-bit length.
const MaxEntrySize = 1<<16 - 1

// Marshal returns the entry's canonical bytes: the log's leaf is SHA-256(0x00 || these bytes).
func (e Entry) Marshal() ([]byte, error) {
	b, err := json.Marshal(entryJSON{ID: e.CredentialID, SHA256: hex.EncodeToString(e.SHA256[:]), Type: e.Type,
		ValidFrom: e.ValidFrom.UTC().Truncate(time.Second).Format(time.RFC3339)})
	if err != nil {
		return nil, err
	}
	if len(b) > MaxEntrySize {
		return nil, fmt.Errorf("issuance log entry of %s is %d bytes", e.CredentialID, len(b))
	}
	return b, nil
}

// ParseEntry reads an entry's canonical bytes back; bytes that are not in canonical form are refused, so that one
// credential has exactly one leaf.
func ParseEntry(b []byte) (Entry, error) {
	var j entryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return Entry{}, fmt.Errorf("issuance log entry: %w", err)
	}
	var e Entry
	sum, err := hex.DecodeString(j.SHA256)
	if err != nil || len(sum) != 32 {
		return Entry{}, fmt.Errorf("issuance log entry: sha256 %q is not 32 hex bytes", j.SHA256)
	}
	copy(e.SHA256[:], sum)
	if e.ValidFrom, err = time.Parse(time.RFC3339, j.ValidFrom); err != nil {
		return Entry{}, fmt.Errorf("issuance log entry: validFrom: %w", err)
	}
	e.CredentialID, e.Type = j.ID, j.Type
	again, err := e.Marshal()
	if err != nil || string(again) != string(b) {
		return Entry{}, fmt.Errorf("issuance log entry is not in canonical form")
	}
	return e, nil
}
