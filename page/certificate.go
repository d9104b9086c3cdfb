package page

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/certificate"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/internal/web"
)

// Certificate is the recipient's certificate without an API key: GET /credentials/{id}/certificate.pdf?token=.
// The token reaches only the recipient (their mail) and the integrator (the API), never the public page. A missing
// or wrong token answers exactly as an unknown id does (404), so the link confirms nothing to a guesser.
func (h *Handler) Certificate(w http.ResponseWriter, r *http.Request) error {
	notFound := web.NotFound("no such certificate")
	row, found, err := h.loadPage(r)
	if err != nil {
		return err
	}
	token, terr := web.ParseUUID(r.URL.Query().Get("token"))
	want := row.Assertion.CertificateToken
	if !found || terr != nil || subtle.ConstantTimeCompare(token[:], want[:]) != 1 {
		return notFound
	}
	return h.ServeCertificate(w, r, row.Assertion.ID)
}

// ServeCertificate answers the certificate of an issued assertion as it stands now, in the language of
// certificateLang. What it shows is decided on every request, as the page decides it (the same assessment,
// verdict and facts), and the rendered file is kept under a key derived from all of it: a revocation, an expiry
// or another language is another key, so a kept certificate can never show a state the badge has left.
func (h *Handler) ServeCertificate(w http.ResponseWriter, r *http.Request, id uuid.UUID) error {
	row, err := h.db.GetBadgePage(r.Context(), id)
	if err != nil {
		return err
	}
	in, images := h.certificateInput(row, h.assess(r.Context(), row.Assertion), certificateLang(r, row))
	key, err := certificateKey(id, in, images)
	if err != nil {
		return err
	}
	if _, err := h.blob.Stat(r.Context(), key); errors.Is(err, blob.ErrNotFound) {
		if err := h.renderCertificate(r.Context(), key, in, images); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-cache") // the badge's state can change at any time: a cache must ask again
	if err := web.ServeBlob(w, r, h.blob, h.log, key, "application/pdf", `attachment; filename="`+row.Assertion.SerialNumber+`.pdf"`); err != nil {
		return err
	}
	h.stats.RecordServed(r, row.Assertion, stats.PDF)
	return nil
}

// certificateLang is the certificate's language: ?lang=en|ko, else the language the recipient's mail was written
// in (notify.LocaleFor over the same names), so the link in a Korean mail opens a Korean certificate.
func certificateLang(r *http.Request, row db.GetBadgePageRow) string {
	if q := strings.ToLower(r.URL.Query().Get("lang")); q == LangEN || q == LangKO {
		return q
	}
	return notify.LocaleFor(row.Assertion.RecipientName, row.OrgName, row.BadgeName)
}

// certificateImages are the stored images a certificate draws, by media id: the badge image as signed (uuid.Nil:
// none), and the badge's signature image, which is the issuer's current record (credentials carry none).
type certificateImages struct {
	Badge     uuid.UUID
	Signature *uuid.UUID
}

// certificateStatus maps the page's verdict onto the certificate's stamp; a verdict the certificate has no stamp
// for is drawn as unverified, never as valid.
var certificateStatus = map[string]certificate.StatusKind{"valid": certificate.StatusValid, "revoked": certificate.StatusRevoked,
	"expired": certificate.StatusExpired, "replaced": certificate.StatusReplaced, "invalid": certificate.StatusUnverified}

// certificateInput is what the certificate of row shows in lang (without the image bytes): the page's facts and
// verdict, so the two never disagree.
func (h *Handler) certificateInput(row db.GetBadgePageRow, as assessment, lang string) (certificate.Input, certificateImages) {
	a := row.Assertion
	f := h.shownFacts(row, as)
	in := certificate.Input{BadgeName: f.Badge, RecipientName: f.Recipient, IssuerName: f.Issuer,
		IssuedOn: formatDate(lang, f.IssuedAt, h.loc), SerialNumber: a.SerialNumber, VerifyURL: h.urls.VerifyURL(a.ID),
		Lang: certificate.Lang(lang), Provenance: certificate.ProvenanceRecords}
	if f.ExpiresAt != nil {
		in.ExpiresOn = formatDateTime(lang, *f.ExpiresAt, h.loc)
	}
	switch {
	case f.RecipientSigned:
		in.Provenance = certificate.ProvenanceSigned
	case f.Signed:
		in.Provenance = certificate.ProvenanceSignedNoName
	}
	for _, c := range f.Criteria {
		in.Criteria = append(in.Criteria, c.Value)
	}
	for _, e := range evidenceItems(f.Evidence) {
		in.Evidence = append(in.Evidence, certificate.Evidence{Name: e.Name, URL: e.URL})
	}
	in.EvidenceSigned = f.EvidenceSigned && len(in.Evidence) > 0
	v := h.pageVerdict(row, as, f, lang)
	kind, ok := certificateStatus[v.Kind]
	if !ok {
		kind = certificate.StatusUnverified
	}
	if kind != certificate.StatusValid {
		detail := v.Detail
		if kind == certificate.StatusUnverified {
			detail = msg(lang, "certificate.invalidDetail") // the page's detail points at checks the PDF lacks
		}
		in.Status = certificate.Status{Kind: kind, Text: v.Title + ". " + detail}
	}
	return in, certificateImages{Badge: f.Image, Signature: row.BadgeSignatureImageID}
}

// certificateKey is where the certificate of in is kept: the assertion, then a digest of everything drawn (the
// layout version, the text, the state, the language and the images' ids), so that any change is a new object.
func certificateKey(id uuid.UUID, in certificate.Input, images certificateImages) (string, error) {
	b, err := json.Marshal(struct {
		Layout int
		Input  certificate.Input
		Images certificateImages
	}{certificate.LayoutVersion, in, images})
	if err != nil {
		return "", fmt.Errorf("certificate key: %w", err)
	}
	sum := sha256.Sum256(b)
	return issuer.CertificateKey(id.String(), hex.EncodeToString(sum[:16])), nil
}

// renderCertificate renders the certificate in with its images and stores it at key.
func (h *Handler) renderCertificate(ctx context.Context, key string, in certificate.Input, images certificateImages) error {
	var err error
	if images.Badge != uuid.Nil { // none: the certificate draws its frame with the badge's name
		if in.BadgeImage, err = h.mediaBytes(ctx, images.Badge, "medium"); err != nil {
			return fmt.Errorf("badge image: %w", err)
		}
	}
	if images.Signature != nil {
		if in.SignatureImage, err = h.mediaBytes(ctx, *images.Signature, "medium"); err != nil {
			return fmt.Errorf("signature image: %w", err)
		}
	}
	pdf, err := h.render(ctx, "certificate", func() ([]byte, error) { return certificate.Render(in) })
	if err != nil {
		return fmt.Errorf("render certificate: %w", err)
	}
	if _, err := h.blob.PutIfAbsent(ctx, key, pdf, "application/pdf"); err != nil {
		return fmt.Errorf("store certificate: %w", err)
	}
	return nil
}

// mediaBytes reads one stored variant of an uploaded image.
func (h *Handler) mediaBytes(ctx context.Context, id uuid.UUID, variant string) ([]byte, error) {
	m, err := h.db.GetMediaFileAnyOrg(ctx, id)
	if err != nil {
		return nil, err
	}
	rc, _, err := h.blob.Get(ctx, issuer.MediaKey(id.String(), variant, m.Ext))
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, certificate.MaxImageBytes+1))
}
