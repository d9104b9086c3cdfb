// Package stats counts what happens to each badge after it is issued (page views, API verifications, PDF downloads,
// share clicks) without slowing the request that causes it: a Recorder adds each event to an in-memory counter per
// (assertion, kind, UTC day, bot) and a background loop adds the counters to Postgres every few seconds, in one
// statement, and once more on shutdown. No IP address, cookie or User-Agent is kept: only whether the User-Agent
// looked like a bot (IsBot).
//
// It imports only db and internal/metrics.
package stats

import (
	"strings"

	"github.com/google/uuid"
)

// Kind is one kind of event; the values are the kind column of assertion_stats_daily (migration 0024).
type Kind string

// The kinds the API records. Wallet claims and bounced mails are not events of the recorder: the database already
// records each (wallet_credentials, the assertion's errorCode) and the stats routes read them there.
const (
	View      Kind = "view"       // the badge page rendered (/verify/{id}, or /credentials/{id} asked for HTML)
	VerifyAPI Kind = "verify_api" // the signed credential fetched as JSON from /credentials/{id} (a verifier)
	PDF       Kind = "pdf"        // the PDF certificate downloaded (the recipient's link or the API)
)

// Networks are the share targets of /share/{assertionId}/{network}, in the order the README lists them.
var Networks = []string{"linkedin-add", "linkedin-post", "x", "facebook", "email", "copy"}

// ShareKind is the kind of a click on the share link of network (one of Networks), e.g. share_linkedin_add.
func ShareKind(network string) Kind {
	return Kind("share_" + strings.ReplaceAll(network, "-", "_"))
}

// Subject is the assertion an event is about, with what the roll-ups group by (copied from the assertion row,
// which never changes them).
type Subject struct {
	Assertion, Org, Badge, Program, Issuance uuid.UUID
	Mode                                     string // live or test
}

// botPatterns are lower-case substrings of User-Agents counted as bots: crawlers and link-preview fetchers
// (search engines, social networks and messengers, Korean portals and KakaoTalk included), HTTP libraries and
// command-line tools, headless browsers and uptime monitors. A request without a User-Agent is a bot too. The
// list is deliberately short and documented in the README; a human behind an unusual browser is rare, a crawler
// not in it shows up in the human column until it is added here.
var botPatterns = []string{
	"bot", "crawl", "spider", "slurp", "scrap", "facebookexternalhit", "facebookcatalog", "embedly", "preview",
	"whatsapp", "yeti/", "daum", "curl/", "wget/", "httpie", "python-", "go-http-client", "okhttp", "java/", "axios/",
	"node-fetch", "undici", "libwww", "headlesschrome", "phantomjs", "lighthouse", "pingdom", "uptime", "monitor",
}

// IsBot reports whether a request with this User-Agent is counted apart, as a bot.
func IsBot(userAgent string) bool {
	ua := strings.ToLower(strings.TrimSpace(userAgent))
	if ua == "" {
		return true
	}
	for _, p := range botPatterns {
		if strings.Contains(ua, p) {
			return true
		}
	}
	return false
}
