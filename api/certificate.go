package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/certificate"
	"github.com/badged/badged/internal/issuer"
)

// getAssertionPDF answers the certificate PDF of an issued assertion. It is rendered on the first download and
// kept (PutIfAbsent), so issuances do not pay for certificates nobody downloads: rendering is the most expensive
// part of a recipient's artifacts (~50 ms of CPU, mostly embedding the Hangul font).
func (h *handler) getAssertionPDF(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "assertionId")
	if err != nil {
		return err
	}
	p := principalOf(r.Context())
	a, err := h.db.GetAssertion(r.Context(), db.GetAssertionParams{OrgID: p.OrgID, ID: id.UUID})
	if db.IsNotFound(err) {
		err = newError(codeAssertionMissing, "assertion %s not found", id)
	}
	if err == nil && (a.Assertion.CredentialKey == nil || !slices.Contains(issuedStates, a.Assertion.State)) {
		err = newError(codeAssertionMissing, "assertion %s has no certificate: it is %s", id, a.Assertion.State)
	}
	if err != nil {
		return err
	}
	key := issuer.CertificateKey(id.String())
	if _, err := h.blob.Stat(r.Context(), key); errors.Is(err, blob.ErrNotFound) {
		if err := h.renderCertificate(r.Context(), key, a, p.OrgName); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	return h.serveBlob(w, r, key, "application/pdf", `attachment; filename="`+a.Assertion.SerialNumber+`.pdf"`)
}

func (h *handler) renderCertificate(ctx context.Context, key string, a db.GetAssertionRow, issuerName string) error {
	m, err := h.db.GetMediaFileAnyOrg(ctx, a.BadgeImageID)
	if err != nil {
		return fmt.Errorf("badge image: %w", err)
	}
	rc, _, err := h.blob.Get(ctx, mediaKey(a.BadgeImageID, "medium", m.Ext))
	if err != nil {
		return fmt.Errorf("badge image: %w", err)
	}
	img, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("badge image: %w", err)
	}
	in := certificate.Input{BadgeName: a.BadgeName, BadgeImage: img, RecipientName: a.Assertion.RecipientName,
		IssuerName: issuerName, IssuedOn: a.Assertion.IssuedAt.In(h.loc).Format("2006-01-02"),
		SerialNumber: a.Assertion.SerialNumber, VerifyURL: h.baseURL + "/verify/" + a.Assertion.ID.String()}
	if a.Assertion.ExpiredAt != nil {
		in.ExpiresOn = a.Assertion.ExpiredAt.In(h.loc).Format("2006-01-02")
	}
	select { // rendering is CPU-heavy
	case h.renders <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	pdf, err := certificate.Render(in)
	<-h.renders
	if err != nil {
		return fmt.Errorf("render certificate: %w", err)
	}
	if _, err := h.blob.PutIfAbsent(ctx, key, pdf, "application/pdf"); err != nil {
		return fmt.Errorf("store certificate: %w", err)
	}
	return nil
}
