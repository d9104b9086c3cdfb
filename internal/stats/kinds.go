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

// The share networks: the ways the badge page offers to share a badge, and the path segment of its counting
// redirect /share/{assertionId}/{network}. They are named here, once: the page builds its links and targets from
// these names, the recorder and the stats routes count and answer by them.
const (
	NetworkLinkedInAdd  = "linkedin-add"  // add the certification to the LinkedIn profile
	NetworkLinkedInPost = "linkedin-post" // a LinkedIn post of the page (LinkedIn reads its Open Graph tags)
	NetworkX            = "x"
	NetworkFacebook     = "facebook"
	NetworkEmail        = "email"
	NetworkCopy         = "copy" // the link the page hands out to be copied
)

// Networks are every share network, in the order the README lists them and the page shows its buttons (LinkedIn's
// add-to-profile and the copy field are shown apart).
var Networks = []string{NetworkLinkedInAdd, NetworkLinkedInPost, NetworkX, NetworkFacebook, NetworkEmail, NetworkCopy}

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

// botPatterns are lower-case substrings of User-Agents counted as bots. A request without a User-Agent is a bot
// too. The list is documented in docs/integrators.md; a crawler not in it shows in the human column until it is added here,
// and a pattern must never match a browser (TestIsBot holds both lists).
var botPatterns = []string{
	// An address to read about the crawler at: browsers name no URL in their User-Agent, crawlers nearly always do
	// ("+https://…/bot.html"), so this catches crawlers whose token says neither bot nor spider (Qwantify, …).
	"http://", "https://", "mailto:",
	// Tokens that say what the fetcher is: Slack-ImgProxy, archivers, validators, Claude-Web, httpx.
	"imgproxy", "archiver", "validator", "claude-web", "httpx", "headless", "synthetics",
	// Crawlers by name: search engines (Googlebot, bingbot, Applebot, DuckDuckBot, YandexBot, Baiduspider, Sogou,
	// Yahoo! Slurp, Naver's Yeti, Daum's), AI crawlers and assistants (GPTBot, ClaudeBot, PerplexityBot, CCBot,
	// Bytespider, Amazonbot), SEO tools (AhrefsBot, SemrushBot, MJ12bot, DotBot), link previews (Twitterbot,
	// LinkedInBot, Slackbot, Discordbot, TelegramBot, Pinterestbot, redditbot). "robot" is in many a contact URL.
	"bot", "crawl", "spider", "slurp", "scrap", "yeti/", "daum/", "daumoa",
	// Google's fetchers whose names carry no "bot": Google-InspectionTool, Google-Read-Aloud,
	// Google-Site-Verification, Google-PageRenderer, GoogleOther, FeedFetcher-Google, Mediapartners-Google, APIs-Google.
	"google-", "-google", "googleother",
	// Fetches made for a person by an AI assistant (ChatGPT-User, Claude-User, Perplexity-User, MistralAI-User), and
	// AI crawlers by other names.
	"chatgpt-user", "claude-user", "perplexity-user", "mistralai-user", "anthropic-ai", "cohere-ai",
	// Link previews and embeds: Facebook and Meta, WhatsApp, Bluesky, Mastodon and other fediverse servers
	// (http.rb), Iframely, Embedly, VK, Skype and Teams, Snapchat, KakaoTalk (kakaotalk-scrap above).
	"facebookexternalhit", "facebookcatalog", "meta-external", "whatsapp", "cardyb", "mastodon/", "http.rb/",
	"iframely", "embedly", "vkshare", "preview",
	// Feed readers and archives.
	"feedfetcher", "feedly", "newsblur", "ia_archiver",
	// HTTP libraries and command-line tools.
	"curl/", "wget/", "httpie", "python-", "python/", "aiohttp", "go-http-client", "okhttp", "java/", "apache-httpclient",
	"axios/", "node-fetch", "undici", "libwww", "ruby", "guzzlehttp", "dart:io", "postmanruntime", "powershell",
	// Headless browsers, audits and monitors.
	"headlesschrome", "phantomjs", "lighthouse", "pingdom", "uptime", "monitor", "statuscake", "site24x7",
	"datadog", "newrelic", "synthetic", "checkly",
}

// humanWords are lower-case substrings of browser User-Agents that contain a bot pattern without being a bot: the
// Cubot phones' model names ("CUBOT X19") hold "bot". They are cut out before the patterns are matched.
var humanWords = []string{"cubot"}

// IsBot reports whether a request with this User-Agent is counted apart, as a bot.
func IsBot(userAgent string) bool {
	ua := strings.ToLower(strings.TrimSpace(userAgent))
	if ua == "" {
		return true
	}
	for _, w := range humanWords {
		ua = strings.ReplaceAll(ua, w, " ")
	}
	for _, p := range botPatterns {
		if strings.Contains(ua, p) {
			return true
		}
	}
	return false
}
