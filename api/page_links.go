package api

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
)

// urls builds the public URLs of the page; a handler without an issuer service (API tests) derives them from the
// public base URL the same way.
func (h *handler) urls() *issuer.Service {
	if h.issuer != nil {
		return h.issuer
	}
	return &issuer.Service{BaseURL: h.baseURL}
}

// linkedInURL is LinkedIn's "add a certification to your profile" link for the badge. Parameters are added in a
// fixed order, each value query-escaped; dates are the month and year in the service time zone.
func linkedInURL(row db.GetBadgePageRow, verifyURL string, loc *time.Location) string {
	a := row.Assertion
	issued := a.IssuedAt.In(loc)
	params := [][2]string{
		{"startTask", "CERTIFICATION_NAME"},
		{"name", row.BadgeName},
		{"organizationName", row.OrgName},
		{"issueYear", strconv.Itoa(issued.Year())},
		{"issueMonth", strconv.Itoa(int(issued.Month()))},
	}
	if a.ExpiredAt != nil {
		exp := a.ExpiredAt.In(loc)
		params = append(params, [2]string{"expirationYear", strconv.Itoa(exp.Year())},
			[2]string{"expirationMonth", strconv.Itoa(int(exp.Month()))})
	}
	params = append(params, [2]string{"certUrl", verifyURL}, [2]string{"certId", a.SerialNumber})
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
