package console

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/audit"
)

// csvBatch is how many recipients the CSV reads per query: the file streams, whatever the issuance's size.
const csvBatch = 2000

// recipientsCSV answers every recipient of the issuance and their result, in order, as CSV.
func (h *Handler) recipientsCSV(w http.ResponseWriter, r *http.Request, a actor) error {
	iss, err := h.orgIssuance(r, a)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="issuance-`+iss.ID.String()+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"seq", "assertionId", "name", "email", "phone", "state", "errorCode", "step"})
	after := int32(-1) // seq starts at 0
	for {
		rows, err := h.db.ListIssuanceRecipients(r.Context(), db.ListIssuanceRecipientsParams{IssuanceID: iss.ID, AfterSeq: after, Lim: csvBatch})
		if err != nil {
			return err // the header is sent: the truncated file ends here, and the log says why
		}
		for _, row := range rows {
			_ = cw.Write([]string{strconv.Itoa(int(row.Seq)), row.ID.String(), cell(row.RecipientName), cell(deref(row.RecipientEmail)),
				cell(deref(row.RecipientPhone)), row.State, deref(row.ErrorCode), row.Step})
			after = row.Seq
		}
		cw.Flush()
		if len(rows) < csvBatch {
			return cw.Error()
		}
	}
}

// cell keeps a recipient's text from being read as a formula by a spreadsheet (CSV injection): text starting with
// = + - @ or a tab or carriage return gets a leading apostrophe.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// redriveIssuance (managers) re-runs the issuance's FAILED recipients whose errorCode is retryable: the same path
// as `badged admin issuance redrive` (temporal.Redriver, handed in as Deps.Redrive).
func (h *Handler) redriveIssuance(w http.ResponseWriter, r *http.Request, a actor) error {
	if h.redrive == nil {
		return &pageError{http.StatusNotImplemented, "noRedrive"}
	}
	iss, err := h.orgIssuance(r, a)
	if err != nil {
		return err
	}
	summary, err := h.redrive(r.Context(), iss.ID)
	if err != nil {
		return err
	}
	if err := audit.Append(r.Context(), h.db, a.event(audit.IssuanceRedrive, iss.ID.String(), summary)); err != nil {
		return err
	}
	http.Redirect(w, r, "/console/issuances/"+iss.ID.String(), http.StatusSeeOther)
	return nil
}
