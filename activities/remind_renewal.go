package activities

import (
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// RenewalPlaceholder in an organization's renewal URL is replaced by the reminded assertion's id.
const RenewalPlaceholder = "{assertionId}"

// RenewalLink is the renewal link of an expiry reminder: the organization's renewal URL (organizations.renewal_url,
// set with `badged admin org update --renewal-url`) for the assertion, "" when the organization offers no renewal.
// The link goes to the organization, not to badged: renewing takes the organization's API key (POST
// /public/v3/assertions/{id}/renew spends its credit), so its own page decides and calls the API. The assertion's
// id goes where the URL says {assertionId}, else into the query parameter assertionId.
func RenewalLink(renewalURL *string, assertion uuid.UUID) string {
	if renewalURL == nil || *renewalURL == "" {
		return ""
	}
	if strings.Contains(*renewalURL, RenewalPlaceholder) {
		return strings.ReplaceAll(*renewalURL, RenewalPlaceholder, assertion.String())
	}
	u, err := url.Parse(*renewalURL)
	if err != nil { // the column is checked on the way in (https, absolute); a bad one gives no link
		return ""
	}
	q := u.Query()
	q.Set("assertionId", assertion.String())
	u.RawQuery = q.Encode()
	return u.String()
}
