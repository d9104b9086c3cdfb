package main

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"github.com/badged/badged/internal/verifier"
)

// publicStatus is the part of a badged credential's public status (GET <credential id>/status) the verifier prints.
type publicStatus struct {
	State            string  `json:"state"`
	RevokedAt        *string `json:"revokedAt"`
	RevocationReason *string `json:"revocationReason"`
}

// printRevocation adds the date and reason of a revocation to the report of a revoked credential. The status list
// says only that a credential is revoked; a badged issuer publishes when and why at <credential id>/status. That
// is the issuer's word, not part of what was verified, so it is printed as such, and only when the credential id
// is on the issuer's own host. Nothing is printed when the document is missing or not badged's.
func printRevocation(ctx context.Context, rep *verifier.Report, fetcher verifier.Fetcher, stdout io.Writer) {
	revoked := false
	for _, c := range rep.Checks {
		revoked = revoked || (c.Name == "status" && c.Result == "revoked")
	}
	id, err1 := url.Parse(rep.ID)
	iss, err2 := url.Parse(rep.Issuer)
	if !revoked || err1 != nil || err2 != nil || id.Host == "" || !strings.EqualFold(id.Host, iss.Host) {
		return
	}
	body, err := fetcher.Fetch(ctx, strings.TrimRight(rep.ID, "/")+"/status")
	var st publicStatus
	if err != nil || json.Unmarshal(body, &st) != nil || st.State != "REVOKED" || st.RevokedAt == nil {
		return
	}
	line := "revoked on " + *st.RevokedAt + " (issuer's statement)"
	if st.RevocationReason != nil && *st.RevocationReason != "" {
		line += ": " + oneLine(*st.RevocationReason)
	}
	_, _ = io.WriteString(stdout, line+"\n")
}

// oneLine keeps a reason from breaking the one-line-per-check output.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
