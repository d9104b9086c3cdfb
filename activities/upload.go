package activities

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/certificate"
)

// CertificateKey is where an assertion's PDF certificate is stored.
func CertificateKey(assertion string) string { return "certificates/" + assertion + ".pdf" }

// UploadArtifacts completes the published artifact set: it renders the PDF certificate (badge image, recipient,
// issuer, dates, serial number and a QR code of the verification page) and stores it next to the credential and
// the baked image. From here on the credential verifies at its URL.
func (a *Activities) UploadArtifacts(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "upload", a.uploadArtifacts(ctx, in))
}

func (a *Activities) uploadArtifacts(ctx context.Context, in StepInput) error {
	row, err := a.DB.GetPipelineAssertion(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	if as.Step != StepBaked {
		return nil
	}
	img, err := a.badgeImage(ctx, row.BadgeImageID)
	if err != nil {
		return err
	}
	cert := certificate.Input{BadgeName: row.BadgeName, BadgeImage: img.Data, RecipientName: as.RecipientName,
		IssuerName: row.OrgName, IssuedOn: as.IssuedAt.In(a.Location).Format("2006-01-02"),
		SerialNumber: as.SerialNumber, VerifyURL: a.Issuer.VerifyURL(as.ID)}
	if as.ExpiredAt != nil {
		cert.ExpiresOn = as.ExpiredAt.In(a.Location).Format("2006-01-02")
	}
	pdf, err := certificate.Render(cert)
	if err != nil {
		return persistErr("render certificate", err)
	}
	if _, err := a.Blob.PutIfAbsent(ctx, CertificateKey(as.ID.String()), pdf, "application/pdf"); err != nil {
		return err
	}
	if _, err := a.DB.SetAssertionStep(ctx, db.SetAssertionStepParams{ID: as.ID, Step: StepUploaded, FromStep: StepBaked}); err != nil {
		return persistErr("record upload", err)
	}
	return nil
}
