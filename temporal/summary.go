package temporal

import (
	"context"
	"fmt"
	"strings"

	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// What the Temporal UI shows of the workflows badged starts (docs/operators.md#the-temporal-ui): a one-line
// summary ("Issue «Gopher» to 10,000 recipients · Acme University · v3 live") and Markdown details with the ids,
// the API URLs and the admin command that inspects the issuance. They are start options, fixed for the run; what
// moves (stage, counts) is in the workflow's current details and search attributes (workflows/operator.go).

// issuanceNames are the badge's and organization's names of an issuance, or "" where unknown.
type issuanceNames struct{ badge, org string }

// names looks up the names for a summary. A summary is a convenience: without a database (admin commands that
// start by id) or when a lookup fails, it names the ids instead, and the start goes on.
func (s Starter) names(ctx context.Context, iss db.Issuance) issuanceNames {
	var n issuanceNames
	if s.DB == nil {
		return n
	}
	if b, err := s.DB.GetBadge(ctx, db.GetBadgeParams{OrgID: iss.OrgID, ID: iss.BadgeID}); err == nil {
		n.badge = b.Name
	}
	if o, err := s.DB.GetOrganization(ctx, iss.OrgID); err == nil {
		n.org = o.Name
	}
	return n
}

// issuanceSummary is the one line of an issuance's workflow (a renewal says "Renew").
func issuanceSummary(iss db.Issuance, n issuanceNames) string {
	verb := "Issue"
	if iss.Renewal {
		verb = "Renew"
	}
	badge := "badge " + iss.BadgeID.String()
	if n.badge != "" {
		badge = "«" + oneLine(n.badge) + "»"
	}
	org := "org " + iss.OrgID.String()
	if n.org != "" {
		org = oneLine(n.org)
	}
	noun := "recipients"
	if iss.AssertionCount == 1 {
		noun = "recipient"
	}
	return fmt.Sprintf("%s %s to %s %s · %s · v%d %s", verb, badge, workflows.Count(int(iss.AssertionCount)), noun, org,
		iss.ApiVersion, iss.Mode)
}

// issuanceDetails is the Markdown of an issuance's workflow: its ids, where the API serves the issuance and its
// badge, and the command that prints everything the database and Temporal know of it.
func (s Starter) issuanceDetails(iss db.Issuance, n issuanceNames) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| issuance | `%s` |\n", iss.ID)
	fmt.Fprintf(&b, "| organization | %s `%s` |\n", mdCell(n.org), iss.OrgID)
	fmt.Fprintf(&b, "| badge | %s `%s` |\n", mdCell(n.badge), iss.BadgeID)
	fmt.Fprintf(&b, "| program | `%s` |\n", iss.ProgramID)
	fmt.Fprintf(&b, "| API version, mode | v%d, %s |\n", iss.ApiVersion, iss.Mode)
	fmt.Fprintf(&b, "| recipients | %s |\n", workflows.Count(int(iss.AssertionCount)))
	if s.BaseURL != "" {
		api := strings.TrimRight(s.BaseURL, "/") + apiPrefix(int(iss.ApiVersion))
		fmt.Fprintf(&b, "| issuance in the API | [%[1]s](%[1]s) |\n", api+"/issuances/"+iss.ID.String())
		fmt.Fprintf(&b, "| badge in the API | [%[1]s](%[1]s) |\n", api+"/badges/"+iss.BadgeID.String())
	}
	fmt.Fprintf(&b, "\nInspect it (database rows, outcomes by errorCode, this workflow):\n\n    badged admin issuance inspect %s\n", iss.ID)
	fmt.Fprintf(&b, "\nRe-drive its retryable failures once it is done:\n\n    badged admin issuance redrive %s\n", iss.ID)
	if s.RedriveWindow > 0 {
		fmt.Fprintf(&b, "\nor, while this workflow waits for it (Stage `%s`, up to %s after its pipeline), send it the Update "+
			"`%s` (no input) from *Send an Update* here or `temporal workflow update execute --workflow-id '%s' --name %s`.\n",
			workflows.StageAwaitingRedrive, s.RedriveWindow, workflows.RedriveUpdate, iss.WorkflowID, workflows.RedriveUpdate)
	}
	return b.String()
}

// apiPrefix is the path prefix of an API version (api/version.go): the API serves its resources under it.
func apiPrefix(version int) string {
	if version == 2 {
		return "/public/v2"
	}
	return "/public/v3"
}

// oneLine keeps a name on the summary's one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdCell keeps client text from breaking the details' table.
func mdCell(s string) string { return strings.ReplaceAll(oneLine(s), "|", "\\|") }

// redriveSummary and redriveDetails describe an issuance's re-drive run.
func redriveSummary(iss db.Issuance, n issuanceNames, workflowID string, recipients int) string {
	run := workflowID[strings.LastIndex(workflowID, "/redrive-")+len("/redrive-"):]
	return fmt.Sprintf("Re-drive %s %s · run %s · %s", workflows.Count(recipients), plural(recipients, "recipient"),
		run, issuanceSummary(iss, n))
}

func (s Starter) redriveDetails(iss db.Issuance, n issuanceNames) string {
	return fmt.Sprintf("Re-drive of the retryable failures of issuance `%s` (workflow `%s`).\n\n", iss.ID, iss.WorkflowID) +
		s.issuanceDetails(iss, n)
}

// webhookSummary and webhookDetails describe one webhook delivery; del is the zero value when it could not be read.
func webhookSummary(deliveryID string, del db.GetWebhookDeliveryRow) string {
	if del.EventType == "" {
		return "Deliver webhook " + deliveryID
	}
	s := fmt.Sprintf("Deliver %s to endpoint %s · org %s", del.EventType, del.EndpointID, del.OrgID)
	if del.RedeliveryOf != nil {
		s = "Re-" + strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

func webhookDetails(deliveryID string, del db.GetWebhookDeliveryRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| | |\n|---|---|\n| delivery | `%s` |\n", deliveryID)
	if del.EventType != "" {
		fmt.Fprintf(&b, "| event | `%s` (%s) |\n| endpoint | `%s` |\n| organization | `%s` |\n", del.EventID, del.EventType,
			del.EndpointID, del.OrgID)
		if del.RedeliveryOf != nil {
			fmt.Fprintf(&b, "| redelivery of | `%s` |\n", *del.RedeliveryOf)
		}
		fmt.Fprintf(&b, "\nThe endpoint's deliveries: `badged admin webhook deliveries %s`\n", del.EndpointID)
	}
	fmt.Fprintf(&b, "\nSend it again: `badged admin webhook redeliver %s`\n", deliveryID)
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// The summaries of the service's own loops.
const (
	reminderSummary = "Expiry reminders: a round every 5 minutes, continued as new every 500 rounds"
	reminderDetails = "Sends the expiry reminders that fell due (claims in Postgres say what was sent).\n\n" +
		"Progress: the `progress` query, or `badged admin reminders status`.\n"
	expirySummary = "Expire assertions past their expiry (every 10 minutes)"
	expiryDetails = "Started by the Schedule `" + workflows.ExpireScheduleID + "`; marks expired assertions EXPIRED.\n"
)
