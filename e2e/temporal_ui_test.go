package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/waitfor"
)

// uiIssuances are two finished issuances of a stack with the Temporal UI: one where a recipient failed (a duplicate
// of another in the same request: DUPLICATE_ISSUANCE at the check) and one where all were issued.
type uiIssuances struct {
	s                 *stack
	failed, clean     db.Issuance
	failedWF, cleanWF string
}

func issueForUI(t *testing.T) uiIssuances {
	s := newStack(t, stackOptions{temporalUI: true})
	tn := s.mustTenant(t, 100)
	issue := func(rs []recipientJSON) db.Issuance {
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "ui-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		iss, err := s.DB.GetIssuanceAnyOrg(context.Background(), uuid.MustParse(id))
		require.NoError(t, err)
		return iss
	}
	dup := emailRecipients("ui-dup", 2)
	u := uiIssuances{s: s, failed: issue(append(dup, dup[0])), clean: issue(emailRecipients("ui-clean", 2))}
	u.failedWF, u.cleanWF = u.failed.WorkflowID, u.clean.WorkflowID
	return u
}

// uiList asks the Temporal UI's HTTP API for the workflows of a visibility query, as the UI's list does.
func uiList(t *testing.T, uiAddr, query string) []string {
	t.Helper()
	u := "http://" + uiAddr + "/api/v1/namespaces/default/workflows?query=" + url.QueryEscape(query)
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", u, body)
	var out struct {
		Executions []struct {
			Execution struct {
				WorkflowID string `json:"workflowId"`
			} `json:"execution"`
		} `json:"executions"`
	}
	require.NoError(t, json.Unmarshal(body, &out), "%s", body)
	var ids []string
	for _, e := range out.Executions {
		ids = append(ids, e.Execution.WorkflowID)
	}
	return ids
}

// TestTemporalUI_FindsTrouble: the operator's saved queries, asked of the embedded Temporal UI's own HTTP API,
// find the issuance with a failed recipient and not the clean one, and so does the UI itself in Chromium, where the
// issuance's page shows its summary (issue 29).
func TestTemporalUI_FindsTrouble(t *testing.T) {
	u := issueForUI(t)
	ui := u.s.Temporal.UIAddr()
	require.NotEmpty(t, ui)
	// Visibility is eventually consistent: the last upsert (Stage done) reaches the index shortly after the run.
	for _, q := range []string{
		`FailedCount > 0`,
		`FailedCodes = "DUPLICATE_ISSUANCE"`,
		`WorkflowType = "IssueBadge" AND FailedCount > 0 AND Stage = "done"`,
	} {
		waitfor.NoError(t, 30*time.Second, 100*time.Millisecond, "the UI to answer "+q, func() error {
			ids := uiList(t, ui, q)
			if !slices.Contains(ids, u.failedWF) {
				return fmt.Errorf("%s: %v lacks %s", q, ids, u.failedWF)
			}
			return nil
		})
		require.NotContains(t, uiList(t, ui, q), u.cleanWF, q)
	}
	clean := uiList(t, ui, `WorkflowType = "IssueBadge" AND FailedCount = 0 AND IssuedCount = 2 AND `+"`Mode`"+` = "live"`)
	require.Contains(t, clean, u.cleanWF)
	require.NotContains(t, clean, u.failedWF)

	// The summary the UI shows is the one the starter set.
	desc, err := u.s.Client.DescribeWorkflow(context.Background(), u.failedWF, "")
	require.NoError(t, err)
	summary, err := desc.GetStaticSummary()
	require.NoError(t, err)
	require.Equal(t, "Issue «E2E badge» to 3 recipients · E2E 아카데미 · v3 live", summary)
	details, err := desc.GetStaticDetails()
	require.NoError(t, err)
	require.Contains(t, details, "badged admin issuance inspect "+u.failed.ID.String())
	require.Contains(t, details, u.s.BaseURL+"/public/v3/issuances/"+u.failed.ID.String())

	// The batch child's summary, and its chunk activities' ("anchor 1–3 of 3"), as the timeline shows them.
	batchWF := u.failedWF + "/batch-00000"
	bdesc, err := u.s.Client.DescribeWorkflow(context.Background(), batchWF, "")
	require.NoError(t, err)
	bsum, err := bdesc.GetStaticSummary()
	require.NoError(t, err)
	require.Equal(t, "Batch 1 of 1 · recipients 1–3 of 3 · issuance "+u.failed.ID.String(), bsum)
	var activities []string
	it := u.s.Client.GetWorkflowHistory(context.Background(), batchWF, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if ev.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
			var s string
			require.NoError(t, converter.GetDefaultDataConverter().FromPayload(ev.GetUserMetadata().GetSummary(), &s))
			activities = append(activities, s)
		}
	}
	// The duplicate left at the check: two recipients (which two depends on which the check saw first) go on to
	// anchor and notify, one activity each.
	require.Len(t, activities, 2)
	require.Regexp(t, `^anchor (1–2|2–3|1–3) of 3( \(2 recipients\))?$`, activities[0])
	require.Regexp(t, `^notify (1–2|2–3|1–3) of 3( \(2 recipients\))?$`, activities[1])

	checkUIInBrowser(t, u, summary)
}

// checkUIInBrowser opens the embedded Temporal UI in headless Chromium as an operator would: the list filtered by
// FailedCount > 0 shows the issuance with a failed recipient and not the clean one, and its page shows its summary.
// With BADGED_SCREENSHOTS set, the two views are saved there (docs/screenshots/, make screenshots).
func checkUIInBrowser(t *testing.T, u uiIssuances, summary string) {
	browser := newBrowser(t)
	tab := newTab(t, browser, desktopWidth, desktopHeight, "en")
	setMediaLight(t, tab)
	ctx, cancel := context.WithTimeout(tab, 90*time.Second)
	defer cancel()
	base := "http://" + u.s.Temporal.UIAddr() + "/namespaces/default/workflows"

	list := base + "?query=" + url.PathEscape("FailedCount > 0")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(list)))
	// The UI renders user metadata (Markdown) in sandboxed iframes: the text is the page's and its frames'.
	shows := func(text string) string {
		return fmt.Sprintf(`document.body && [document.body.innerText,
			...[...document.querySelectorAll('iframe')].map(f => (f.srcdoc || '') + ((f.contentDocument && f.contentDocument.body) ? f.contentDocument.body.innerText : ''))
		].join('\n').includes(%q)`, text)
	}
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](shows(u.failedWF), chromedp.WithPollingInterval(200*time.Millisecond)))
	require.NoError(t, err, "the list filtered by FailedCount > 0 shows %s", u.failedWF)
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	require.NoError(t, err)
	require.NotContains(t, text, u.cleanWF, "the clean issuance is not in the filtered list")
	screenshot(t, ctx, "temporal-ui-failed-count")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"+url.PathEscape(u.failedWF))))
	// The summary and details are in the page's "User Metadata" section: open it, as an operator does.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
		const b = [...document.querySelectorAll('button, summary, [role=button], [role=tab]')].find(e => e.innerText.trim().startsWith('User Metadata'));
		if (!b) return false;
		b.click();
		return true;
	})()`, chromedp.WithPollingInterval(200*time.Millisecond)))
	require.NoError(t, err, "the workflow page has a User Metadata section")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](shows(summary), chromedp.WithPollingInterval(200*time.Millisecond)))
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerHTML`))
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		t.Logf("the page at %s:\n%s", loc, text)
	}
	require.NoError(t, err, "the workflow page shows the summary %q", summary)
	screenshot(t, ctx, "temporal-ui-issuance")
}

// screenshot saves the tab's viewport as name.png under BADGED_SCREENSHOTS, when it is set.
func screenshot(t *testing.T, tab context.Context, name string) {
	dir := os.Getenv("BADGED_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}
