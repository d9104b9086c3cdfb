package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/badged/badged/internal/credential"
)

// checkStatus checks each Bitstring Status List revocation entry: the list credential is fetched, its own proof
// verified with the same resolver (its issuer must be the credential's), and the bit read. A list that cannot be
// had (unreachable, not a list credential, expired: the issuer's current word is not known) is "could not check",
// never a pass: a verifier that passed when the list is unreachable could be fooled by blocking it. A list that
// is not the issuer's (its proof, its issuer, its id) fails the check. Offline, the check is "not checked".
func checkStatus(ctx context.Context, cred []byte, doc map[string]any, resolver credential.Resolver, fetcher Fetcher, now time.Time) Check {
	c := Check{Name: "status"}
	entries := asList(doc["credentialStatus"])
	if doc["credentialStatus"] == nil || len(entries) == 0 {
		c.Result, c.Detail = ResultNone, "the credential has no credentialStatus, so it cannot be revoked"
		return c
	}
	var lists []string
	for _, e := range entries {
		m, _ := e.(map[string]any)
		if l, _ := m["statusListCredential"].(string); l != "" {
			lists = append(lists, l)
		}
	}
	if fetcher == nil {
		c.Result, c.Detail = ResultNotChecked, "offline: the status list is online"
		if len(lists) > 0 {
			c.Detail = "offline: the status list " + strings.Join(lists, ", ") + " is not fetched"
		}
		return c
	}
	var checked []string
	var unsupported []string
	for _, e := range entries {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		purpose, _ := m["statusPurpose"].(string)
		if typ != "BitstringStatusListEntry" || purpose != credential.StatusPurposeRevocation {
			unsupported = append(unsupported, fmt.Sprintf("%s/%s", typ, purpose))
			continue
		}
		listURL, _ := m["statusListCredential"].(string)
		revoked, err := revokedIn(ctx, cred, listURL, resolver, fetcher, now)
		if err != nil {
			c.setError(err)
			return c
		}
		if revoked {
			c.Result, c.Failed, c.Detail = "revoked", true, fmt.Sprintf("bit %v of %s is set", m["statusListIndex"], listURL)
			// A reissue sets the bit too; the issuer names the replacement at the credential's own URL.
			if sf, ok := fetcher.(SuccessorFinder); ok {
				id, _ := doc["id"].(string)
				if next, err := sf.Successor(ctx, id); err == nil && next != "" {
					c.Result, c.Detail = "replaced", c.Detail+"; the issuer replaced this credential with a reissued one: "+next
				}
			}
			return c
		}
		checked = append(checked, fmt.Sprintf("bit %v of %s", m["statusListIndex"], listURL))
	}
	if len(checked) == 0 {
		// The credential says where its status is, in a form this verifier does not read: whether it is revoked
		// is not known.
		c.Result, c.CouldNotCheck, c.Detail = ResultCouldNotCheck, true, "unsupported status entry "+strings.Join(unsupported, ", ")
		return c
	}
	c.Result, c.Detail = ResultOK, "not revoked: "+strings.Join(checked, ", ")
	if len(unsupported) > 0 {
		c.Detail += "; not checked: unsupported status entry " + strings.Join(unsupported, ", ")
	}
	return c
}

// revokedIn reads the credential's bit in the list at listURL. Its errors are unavailable when the list could not
// be had, plain when the list is not the issuer's.
func revokedIn(ctx context.Context, cred []byte, listURL string, resolver credential.Resolver, fetcher Fetcher, now time.Time) (bool, error) {
	if listURL == "" {
		return false, errors.New("status entry has no statusListCredential")
	}
	list, err := fetcher.Fetch(ctx, listURL)
	if err != nil {
		return false, unavailable(fmt.Errorf("status list: %w", err))
	}
	var listDoc map[string]any
	if err := json.Unmarshal(list, &listDoc); err != nil {
		return false, unavailable(fmt.Errorf("status list %s: not a status list credential: %w", listURL, err))
	}
	if _, err := credential.VerifyWithLimits(ctx, list, resolver, credential.DefaultLimits); err != nil {
		return false, fmt.Errorf("status list %s: proof: %w", listURL, err) // unavailable still when its key was
	}
	until, err := dateField(listDoc, "validUntil", "expirationDate")
	switch {
	case err != nil:
		return false, fmt.Errorf("status list %s: %w", listURL, err)
	case !until.IsZero() && !now.Before(until):
		return false, unavailable(fmt.Errorf("status list %s expired at %s: the issuer's current status is not known",
			listURL, until.UTC().Format(time.RFC3339)))
	}
	// CheckStatus also requires the list to be the one the entry names and to come from the credential's issuer.
	return credential.CheckStatus(cred, list)
}
func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}
