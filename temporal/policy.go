// Package temporal is badged's Temporal plumbing: the client, the worker and the embedded dev server. It holds no
// business logic.
//
// It may import workflows, activities, db and the internal/ packages, never api or cmd/; the embedded server is
// temporal/devserver, which production builds leave out.
package temporal

import _ "embed"

// DefaultRetryPolicy is temporal/retry-policy.json, used when RETRY_POLICY_FILE is not set.
//
//go:embed retry-policy.json
var DefaultRetryPolicy []byte
