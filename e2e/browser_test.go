package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Viewports of the page tests: a laptop, and the narrowest common phone (375 CSS pixels).
const (
	desktopWidth, desktopHeight = 1280, 900
	phoneWidth, phoneHeight     = 375, 812
)

// chromiumPath finds Chromium: BADGED_CHROMIUM, else chromium on PATH (Debian's package, `make os-deps`).
// The page tests need a real browser, so a missing one fails them; it never skips them.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("BADGED_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Fatal("Chromium is not installed: the badge page tests need a real browser. Run `make os-deps` " +
		"(apt-get install chromium) or set BADGED_CHROMIUM to a Chrome/Chromium binary.")
	return ""
}

// axeSource is axe-core's script, installed by `make axe` (never committed) and named by BADGED_AXE_JS; without
// the variable the default install path under the repository is tried.
func axeSource(tb testing.TB) string {
	tb.Helper()
	path := os.Getenv("BADGED_AXE_JS")
	if path == "" {
		_, here, _, _ := runtime.Caller(0)
		path = filepath.Join(filepath.Dir(here), "..", ".tools", "node_modules", "axe-core", "axe.min.js")
	}
	src, err := os.ReadFile(path)
	require.NoError(tb, err, "axe-core is not installed at %s: run `make axe` (npm install of the pinned axe-core)", path)
	return string(src)
}

// newBrowser starts one headless Chromium for the test; each page runs in a tab of its own (newTab).
func newBrowser(tb testing.TB) context.Context {
	tb.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(tb)),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(desktopWidth, desktopHeight))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser; its context must not carry a timeout (it would stop the browser).
	_, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`))
	require.NoError(tb, err, "start Chromium")
	return ctx
}

// newTab opens a tab of the browser with a viewport and an Accept-Language ("" leaves Chromium's own).
func newTab(tb testing.TB, browser context.Context, width, height int64, acceptLanguage string) context.Context {
	tb.Helper()
	tab, cancel := chromedp.NewContext(browser)
	tb.Cleanup(cancel)
	steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(width, height)}
	if width <= phoneWidth {
		steps = []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(width, height, chromedp.EmulateScale(2), chromedp.EmulateMobile)}
	}
	require.NoError(tb, chromedp.Do(tab, steps...))
	_, err := chromedp.Call(tab, network.Enable, network.EnableParams{})
	require.NoError(tb, err)
	if acceptLanguage != "" {
		_, err := chromedp.Call(tab, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": acceptLanguage}})
		require.NoError(tb, err)
	}
	return tab
}

// axeViolation is one failed axe-core rule.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// runAxe injects axe-core into the loaded page through the DevTools protocol (the page itself allows no script)
// and returns its violations.
func runAxe(tb testing.TB, tab context.Context, src string) []axeViolation {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](src+"\n;true"))
	require.NoError(tb, err, "inject axe-core")
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(n => n.target.join(" "))})))`,
		chromedp.EvalAwaitPromise))
	require.NoError(tb, err, "run axe-core")
	return out
}

// setMediaLight pins the colour scheme, so screenshots do not depend on the machine's setting.
func setMediaLight(tb testing.TB, tab context.Context) {
	tb.Helper()
	_, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}})
	require.NoError(tb, err)
}
