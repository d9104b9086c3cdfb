package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/google/uuid"

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
	return h.serveCertificate(w, r, id.UUID)
}

// getCertificatePDF is the recipient's certificate without an API key: GET /credentials/{id}/certificate.pdf?token=.
// A missing or wrong token answers exactly as an unknown id does (404), so the link confirms nothing to a guesser.
func (h *handler) getCertificatePDF(w http.ResponseWriter, r *http.Request) error {
	notFound := newError(codeNotFound, "no such certificate")
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	token, terr := parseUUID(r.URL.Query().Get("token"))
	want := row.Assertion.CertificateToken
	if !found || terr != nil || subtle.ConstantTimeCompare(token[:], want[:]) != 1 {
		return notFound
	}
	return h.serveCertificate(w, r, row.Assertion.ID)
}

// serveCertificate answers the stored certificate of an issued assertion, rendering it on first use.
func (h *handler) serveCertificate(w http.ResponseWriter, r *http.Request, id uuid.UUID) error {
	key := issuer.CertificateKey(id.String())
	row, err := h.db.GetBadgePage(r.Context(), id)
	if err != nil {
		return err
	}
	if _, err := h.blob.Stat(r.Context(), key); errors.Is(err, blob.ErrNotFound) {
		if err := h.renderCertificate(r.Context(), key, row); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	return h.serveBlob(w, r, key, "application/pdf", `attachment; filename="`+row.Assertion.SerialNumber+`.pdf"`)
}

// renderCertificate renders and stores the certificate of a: badge image, names, dates, the badge's criteria and,
// when the badge has one, its signature image.
func (h *handler) renderCertificate(ctx context.Context, key string, a db.GetBadgePageRow) error {
	img, err := h.mediaBytes(ctx, a.BadgeImageID, "medium")
	if err != nil {
		return fmt.Errorf("badge image: %w", err)
	}
	in := certificate.Input{BadgeName: a.BadgeName, BadgeImage: img, RecipientName: a.Assertion.RecipientName,
		IssuerName: a.OrgName, IssuedOn: a.Assertion.IssuedAt.In(h.loc).Format("2006-01-02"),
		SerialNumber: a.Assertion.SerialNumber, VerifyURL: h.urls().VerifyURL(a.Assertion.ID)}
	if a.BadgeSignatureImageID != nil {
		if in.SignatureImage, err = h.mediaBytes(ctx, *a.BadgeSignatureImageID, "medium"); err != nil {
			return fmt.Errorf("signature image: %w", err)
		}
	}
	var crit []criterion
	_ = json.Unmarshal(a.BadgeCriteria, &crit) // written by the badge handlers from the same type
	for _, c := range crit {
		in.Criteria = append(in.Criteria, c.Value)
	}
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

// mediaBytes reads one stored variant of an uploaded image.
func (h *handler) mediaBytes(ctx context.Context, id uuid.UUID, variant string) ([]byte, error) {
	m, err := h.db.GetMediaFileAnyOrg(ctx, id)
	if err != nil {
		return nil, err
	}
	rc, _, err := h.blob.Get(ctx, mediaKey(id, variant, m.Ext))
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, certificate.MaxImageBytes+1))
}
