package stats

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

// memStore adds flushes in memory, each visitor once per assertion, kind and day; fail makes the next flushes
// fail.
type memStore struct {
	mu     sync.Mutex
	fail   int
	calls  int
	rows   map[string]int64 // assertion|kind|day|bot → n
	visits map[string]bool  // day|assertion|kind|visitor
	keys   map[pgtype.Date][]byte
	order  [][]uuid.UUID
}

func (m *memStore) AddUniqueStats(_ context.Context, p db.AddUniqueStatsParams) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.fail > 0 {
		m.fail--
		return errors.New("database down")
	}
	if m.rows == nil {
		m.rows, m.visits = map[string]int64{}, map[string]bool{}
	}
	for i := range p.AssertionIds {
		v := p.Days[i] + "|" + p.AssertionIds[i].String() + "|" + p.Kinds[i] + "|" + string(p.Visitors[i])
		if m.visits[v] {
			continue
		}
		m.visits[v] = true
		k := p.AssertionIds[i].String() + "|" + p.Kinds[i] + "|" + p.Days[i]
		if p.Bots[i] {
			k += "|bot"
		}
		m.rows[k]++
	}
	m.order = append(m.order, p.AssertionIds)
	return nil
}

func (m *memStore) VisitorKey(_ context.Context, day pgtype.Date) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.keys[day]; ok {
		return k, nil
	}
	return nil, pgx.ErrNoRows
}

func (m *memStore) PutVisitorKey(_ context.Context, p db.PutVisitorKeyParams) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[pgtype.Date][]byte{}
	}
	if _, ok := m.keys[p.Day]; !ok {
		m.keys[p.Day] = p.Key
	}
	return nil
}

func (m *memStore) ForgetVisitors(context.Context, pgtype.Date) error { return nil }

// crawlerUAs are User-Agents crawlers, link previews, AI fetchers, tools and monitors send today, as their
// operators document them: every one is a bot.
var crawlerUAs = []string{
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/126.0.6478.126 Safari/537.36",
	"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Googlebot-Image/1.0",
	"Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)",
	"Mozilla/5.0 (compatible; GoogleOther)",
	"FeedFetcher-Google; (+http://www.google.com/feedfetcher.html)",
	"Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)",
	"AdsBot-Google (+http://www.google.com/adsbot.html)",
	"Mediapartners-Google",
	"Mozilla/5.0 (X11; Linux x86_64; Storebot-Google/1.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.88 Safari/537.36",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
	"DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)",
	"DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)",
	"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
	"Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
	"Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)",
	"Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
	"Mozilla/5.0 (compatible; Yeti/1.1; +https://naver.me/spd)",
	"Mozilla/5.0 (compatible; Daum/4.1; +http://cs.daum.net/faq/15/4118.html?faqId=28966)",
	"Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)",
	"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
	"meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
	"meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
	"Twitterbot/1.0",
	"LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
	"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
	"Slack-ImgProxy (+https://api.slack.com/robots)",
	"Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
	"TelegramBot (like TwitterBot)",
	"WhatsApp/2.23.20.0 A",
	"Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)",
	"Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)",
	"Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)",
	"Mastodon/4.2.10 (http.rb/5.1.1; +https://mastodon.social/)",
	"Iframely/1.3.1 (+https://iframely.com/docs/about) Atlassian",
	"Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com",
	"kakaotalk-scrap/1.0; +https://devtalk.kakao.com/t/scrap/33984",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
	"CCBot/2.0 (https://commoncrawl.org/faq/)",
	"Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36",
	"Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
	"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
	"Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
	"Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)",
	"Mozilla/5.0 (compatible; DotBot/1.2; +https://opensiteexplorer.org/dotbot; help@moz.com)",
	"Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot)",
	"ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)",
	"Feedly/1.0 (+http://www.feedly.com/fetcher.html; 5 subscribers)",
	"Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
	"Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
	"curl/8.5.0", "Wget/1.21.4", "python-requests/2.31.0", "Python/3.11 aiohttp/3.9.1", "Go-http-client/2.0",
	"okhttp/4.12.0", "Java/17.0.9", "Apache-HttpClient/5.2.1 (Java/17.0.9)", "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
	"undici", "axios/1.6.2", "Ruby", "PostmanRuntime/7.36.0", "Dart/3.2 (dart:io)",
	"Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.19045; en-US) PowerShell/7.4.0",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
	"", "   ",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36",
	"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"GoogleOther",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/84.0.4147.105 Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)",
	"Mozilla/5.0 (compatible; MSIE or Firefox mutant; not on Windows server;) Daumoa/4.0",
	"meta-externalagent/1.1",
	"Slack-ImgProxy 0.19",
	"facebookexternalhit/1.1; kakaotalk-scrap/1.0",
	"Mozilla/5.0 (compatible; Bluesky Cardyb/1.1)",
	"http.rb/5.1.1 (Mastodon/4.2.1)",
	"Iframely/1.3.1",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0)",
	"cohere-ai",
	"Mozilla/5.0 (compatible; Qwantify/2.4w; +https://www.qwant.com/)/2.4w",
	"ia_archiver",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 DatadogSynthetics",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
	"Python/3.12 aiohttp/3.9.1",
	"python-requests/2.32.3",
	"Go-http-client/1.1",
}

// browserUAs are User-Agents of the browsers and in-app browsers people open badge pages in: every one is human.
var browserUAs = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
	"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/131.2903.68 Mobile/15E148 Safari/605.1.15",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
	"Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Whale/3.28.266.14 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 NAVER(inapp; search; 2000; 12.6.3; 15PRO)",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KAKAOTALK 10.4.5",
	"Mozilla/5.0 (Linux; Android 13; SM-S911N Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.43 Mobile Safari/537.36 DaumApps/7.10.1 DaumDevice/mobile",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/343.0.695551749 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/485.0.0.43.108;FBBV/652574396;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.6;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/654441128]",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 352.1.0.30.85 (iPhone15,2; iOS 17_6; en_US; en; scale=3.00; 1179x2556; 648148426)",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.30.1834",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/14.13.0",
	"Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
	"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.0.0 Mobile DuckDuckGo/5 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 YaBrowser/24.10.0.0 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Vivaldi/7.0.3495.18",
	"Mozilla/5.0 (Linux; U; Android 10; en-US; RMX2020 Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 UCBrowser/13.4.0.1306 Mobile Safari/537.36",
	"Opera/9.80 (Android; Opera Mini/36.2.2254/119.132; U; id) Presto/2.12.423 Version/12.16",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.50(0x1800323c) NetType/WIFI Language/zh_CN",
	"Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36",
	"Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918N) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 YaBrowser/24.6.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 NAVER(inapp; search; 2000; 12.6.5; 15PRO)",
	"Mozilla/5.0 (Linux; Android 13; SM-S911N Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.230 Mobile Safari/537.36 DaumApps/8.2.3 DaumDevice/mobile",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/447.0.0.39.106;FBBV/560227374;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/562155470]",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone14,5; iOS 17_1; en_US; en; scale=3.00; 1170x2532; 532277668)",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.20.0",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/127.0.6533.103 Mobile Safari/537.36 [LinkedInApp]/9.30.1",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/343.0.695551749 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0 Teams/24004.1403.2634.2418",
	"Mozilla/5.0 (Linux; Android 14; SM-A546E Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36 Telegram-Android/11.4.2 (Samsung SM-A546E; Android 14; SDK 34; AVERAGE)",
	"Mozilla/5.0 (Linux; Android 14; SM-S928N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Whale/1.0.0.0 Crosswalk/28.126.0.12 Mobile Safari/537.36 NAVER(inapp; search; 2000; 12.7.0)",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15",
}

func TestIsBot(t *testing.T) {
	require.GreaterOrEqual(t, len(crawlerUAs), 20)
	for _, ua := range crawlerUAs {
		require.True(t, IsBot(ua), "a bot: %q", ua)
	}
	require.GreaterOrEqual(t, len(browserUAs), 20)
	for _, ua := range browserUAs {
		require.False(t, IsBot(ua), "a person: %q", ua)
	}
}

func TestShareKind(t *testing.T) {
	require.Equal(t, Kind("share_linkedin_add"), ShareKind("linkedin-add"))
	require.Equal(t, Kind("share_x"), ShareKind("x"))
}

// TestRecorder_FailedFlushKeepsCounts: a failed flush merges its counts back, the next one adds them with what came
// since, each visitor once; rows go out sorted by assertion (one lock order for every process).
func TestRecorder_FailedFlushKeepsCounts(t *testing.T) {
	st := &memStore{fail: 1}
	day := time.Date(2025, 3, 1, 23, 59, 0, 0, time.FixedZone("KST", 9*3600)) // 14:59 UTC
	r := NewRecorder(st, Options{Clock: func() time.Time { return day }})
	a, b := Subject{Assertion: uuid.New(), Mode: "live"}, Subject{Assertion: uuid.New(), Mode: "live"}
	r.Record(a, View, "198.51.100.1", "Mozilla/5.0")
	r.Record(a, View, "198.51.100.2", "Mozilla/5.0")
	r.Record(a, View, "198.51.100.2", "Mozilla/5.0") // the same visitor again: nothing
	r.Record(b, View, "198.51.100.1", "curl/8")
	require.Error(t, r.Flush(context.Background()))
	r.Record(a, View, "198.51.100.3", "Mozilla/5.0")
	r.Record(a, View, "198.51.100.1", "Mozilla/5.0") // counted already, before the failed flush
	require.NoError(t, r.Flush(context.Background()))
	require.NoError(t, r.Flush(context.Background()), "nothing left: no call")
	require.Equal(t, 2, st.calls)
	require.Equal(t, map[string]int64{a.Assertion.String() + "|view|2025-03-01": 3, b.Assertion.String() + "|view|2025-03-01|bot": 1}, st.rows)
	ids := st.order[0]
	require.Len(t, ids, 4, "a's three visitors and b's one")
	require.NotEqual(t, ids[0], ids[3], "two assertions")
	for i := 1; i < len(ids); i++ {
		require.LessOrEqual(t, compareUUID(ids[i-1], ids[i]), 0, "sorted by assertion")
	}
}

func compareUUID(x, y uuid.UUID) int {
	for i := range x {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return 0
}

// TestRecorder_MaxKeys: past the bound, events of new keys are dropped (and counted), held keys still count.
func TestRecorder_MaxKeys(t *testing.T) {
	st := &memStore{}
	r := NewRecorder(st, Options{MaxKeys: 2})
	a, b, c := Subject{Assertion: uuid.New()}, Subject{Assertion: uuid.New()}, Subject{Assertion: uuid.New()}
	r.Record(a, PDF, "1", "x")
	r.Record(b, PDF, "1", "x")
	r.Record(c, PDF, "1", "x") // dropped
	r.Record(a, PDF, "1", "x") // held already
	require.NoError(t, r.Flush(context.Background()))
	require.Len(t, st.rows, 2)
	var total int64
	for _, n := range st.rows {
		total += n
	}
	require.Equal(t, int64(2), total)
}

// TestRecorder_RunFlushesOnStop: cancelling Run flushes what was recorded, with a context of its own.
func TestRecorder_RunFlushesOnStop(t *testing.T) {
	st := &memStore{}
	r := NewRecorder(st, Options{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	r.Record(Subject{Assertion: uuid.New()}, VerifyAPI, "1", "x")
	cancel()
	<-done
	require.Len(t, st.rows, 1)
}

func TestRecorder_NilRecordsNothing(t *testing.T) {
	var r *Recorder
	r.Record(Subject{}, View, "", "")
	require.NoError(t, r.Flush(context.Background()))
}
