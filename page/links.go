package page

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// linkedInURL is LinkedIn's "add a certification to your profile" link for the badge. Parameters are added in a
// fixed order, each value query-escaped; dates are the month and year in the service time zone, of the facts the
// page shows (the signed ones when the credential verified).
func linkedInURL(f shownFacts, serial, verifyURL string, loc *time.Location) string {
	issued := f.IssuedAt.In(loc)
	params := [][2]string{
		{"startTask", "CERTIFICATION_NAME"},
		{"name", f.Badge},
		{"organizationName", f.Issuer},
		{"issueYear", strconv.Itoa(issued.Year())},
		{"issueMonth", strconv.Itoa(int(issued.Month()))},
	}
	if f.ExpiresAt != nil {
		exp := f.ExpiresAt.In(loc)
		params = append(params, [2]string{"expirationYear", strconv.Itoa(exp.Year())},
			[2]string{"expirationMonth", strconv.Itoa(int(exp.Month()))})
	}
	params = append(params, [2]string{"certUrl", verifyURL}, [2]string{"certId", serial})
	var b strings.Builder
	b.WriteString("https://www.linkedin.com/profile/add?")
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p[0] + "=" + url.QueryEscape(p[1]))
	}
	return b.String()
}
