package api

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
)

// ChainVerifier looks an anchor up on chain, alone or through a Merkle inclusion proof; *chain.Verifier
// satisfies it.
type ChainVerifier interface {
	Verify(ctx context.Context, txHash string, digest [32]byte) (chain.Anchor, error)
	VerifyProof(ctx context.Context, txHash string, digest [32]byte, proof chain.Proof) (chain.Anchor, error)
}

//go:embed templates/*.html
var templateFS embed.FS

var verifyTemplate = template.Must(template.ParseFS(templateFS, "templates/verify.html"))

// check is one line of the verification page.
type check struct {
	Name   string
	OK     bool
	Detail string
}

type verifyView struct {
	Valid         bool
	Verdict       string
	BadgeName     string
	RecipientName string
	IssuerName    string
	IssuedAt      string
	ExpiredAt     string
	SerialNumber  string
	ImageURL      string
	CredentialURL string
	Checks        []check
	// Replaced is set for a REISSUED original: its status bit is set (not valid) because a reissue replaced it.
	// ReplacementURL is the replacement's credential URL (page for browsers, JSON for verifiers), when known.
	Replaced       bool
	ReplacementURL string
}

// verifyPage is the public verification page (v2's credentialUrl; v3's for browsers). It checks the signature,
// the anchor, the status and the expiry itself, and says plainly what it found. No script runs on it.
func (h *handler) verifyPage(w http.ResponseWriter, r *http.Request) error {
	a, err := h.publicAssertion(r)
	if err != nil {
		return err
	}
	view := h.verify(r.Context(), a)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-cache")
	if err := verifyTemplate.Execute(w, view); err != nil {
		h.log.WarnContext(r.Context(), "render verify page", "err", err)
	}
	return nil
}

func (h *handler) verify(ctx context.Context, row db.GetPublicAssertionRow) verifyView {
	a, now := row.Assertion, h.now()
	v := verifyView{BadgeName: row.BadgeName, RecipientName: a.RecipientName, IssuerName: row.OrgName,
		IssuedAt: a.IssuedAt.In(h.loc).Format("2006-01-02 15:04 MST"), SerialNumber: a.SerialNumber,
		ImageURL: h.baseURL + "/media/" + row.BadgeImageID.String() + "/medium", CredentialURL: h.baseURL + "/credentials/" + a.ID.String()}
	if a.ExpiredAt != nil {
		v.ExpiredAt = a.ExpiredAt.In(h.loc).Format("2006-01-02 15:04 MST")
	}
	if a.State == "REISSUED" {
		v.Replaced = true
		if a.ReplacedBy != nil {
			v.ReplacementURL = h.baseURL + "/credentials/" + a.ReplacedBy.String()
		}
	}
	cred, sigCheck := h.checkSignature(ctx, a)
	v.Checks = append(v.Checks, sigCheck, h.checkAnchor(ctx, a, cred), h.checkStatus(ctx, a),
		check{Name: "Expiry", OK: a.ExpiredAt == nil || a.ExpiredAt.After(now), Detail: expiryDetail(a.ExpiredAt, now, h.loc)})
	v.Valid = true
	for _, c := range v.Checks {
		v.Valid = v.Valid && c.OK
	}
	v.Verdict = "This badge is valid."
	switch {
	case v.Replaced:
		v.Verdict = "This badge is NOT valid: it was replaced by a reissued badge."
	case !v.Valid:
		v.Verdict = "This badge is NOT valid."
	}
	return v
}

func (h *handler) checkSignature(ctx context.Context, a db.Assertion) ([]byte, check) {
	c := check{Name: "Signature"}
	rc, _, err := h.blob.Get(ctx, *a.CredentialKey)
	if err != nil {
		c.Detail = "the signed credential could not be read"
		return nil, c
	}
	defer rc.Close()
	cred, err := io.ReadAll(io.LimitReader(rc, 2<<20))
	if err != nil {
		c.Detail = "the signed credential could not be read"
		return nil, c
	}
	doc, found, err := h.issuer.ControllerDocument(ctx, a.OrgID)
	if err != nil || !found {
		c.Detail = "the issuer's key could not be found"
		return cred, c
	}
	docJSON, _ := json.Marshal(doc)
	resolver, err := credential.NewStaticResolver(docJSON)
	if err == nil {
		_, err = credential.Verify(ctx, cred, resolver)
	}
	if err != nil {
		c.Detail = "the Data Integrity proof (eddsa-rdfc-2022) does not verify: " + err.Error()
		return cred, c
	}
	c.OK, c.Detail = true, "Data Integrity proof eddsa-rdfc-2022 verified with the issuer's key "+h.issuer.IssuerID(a.OrgID)
	return cred, c
}

func (h *handler) checkAnchor(ctx context.Context, a db.Assertion, cred []byte) check {
	c := check{Name: "Blockchain anchor"}
	switch {
	case a.AnchorTxHash == nil:
		c.OK, c.Detail = true, "not anchored (test issuance or anchoring disabled); the signature alone proves the credential"
	case cred == nil:
		c.Detail = "the credential could not be read to compare with the anchor"
	case h.chain == nil:
		c.OK, c.Detail = true, fmt.Sprintf("recorded in transaction %s, block %d of chain %d (this server has no chain connection to re-check it)",
			*a.AnchorTxHash, deref64(a.AnchorBlock), deref64(a.AnchorChainID))
	case a.AnchorProof != nil:
		var proof chain.Proof
		if err := json.Unmarshal(a.AnchorProof, &proof); err != nil {
			c.Detail = "the stored inclusion proof is unreadable"
			return c
		}
		res, err := h.chain.VerifyProof(ctx, *a.AnchorTxHash, sha256.Sum256(cred), proof)
		if err != nil {
			c.Detail = "the anchor transaction " + *a.AnchorTxHash + " could not be confirmed: " + err.Error()
			return c
		}
		c.OK, c.Detail = true, fmt.Sprintf("the credential's SHA-256 is in the Merkle tree (proof of %d hashes) whose root is in transaction %s, block %d of chain %d",
			len(proof), res.TxHash, res.BlockNumber, res.ChainID)
	default:
		res, err := h.chain.Verify(ctx, *a.AnchorTxHash, sha256.Sum256(cred))
		if err != nil {
			c.Detail = "the anchor transaction " + *a.AnchorTxHash + " could not be confirmed: " + err.Error()
			return c
		}
		c.OK, c.Detail = true, fmt.Sprintf("the credential's SHA-256 is in transaction %s, block %d of chain %d", res.TxHash, res.BlockNumber, res.ChainID)
	}
	return c
}

func (h *handler) checkStatus(ctx context.Context, a db.Assertion) check {
	c := check{Name: "Revocation status"}
	revoked := a.State == "REVOKED" || a.State == "REISSUED"
	if a.StatusListID != nil && a.StatusListIndex != nil {
		l, err := h.db.GetStatusList(ctx, *a.StatusListID)
		if err != nil {
			c.Detail = "the status list could not be read"
			return c
		}
		i := int(*a.StatusListIndex)
		revoked = revoked || l.Bits[i/8]&(0x80>>(i%8)) != 0
	}
	switch {
	case revoked && a.State == "REISSUED":
		c.Detail = "the issuer replaced this badge with a reissued one; its status entry is set"
		return c
	case revoked:
		c.Detail = "the issuer has revoked this badge"
		return c
	}
	c.OK, c.Detail = true, "not revoked (Bitstring Status List entry checked)"
	return c
}

func expiryDetail(exp *time.Time, now time.Time, loc *time.Location) string {
	switch {
	case exp == nil:
		return "does not expire"
	case exp.After(now):
		return "valid until " + exp.In(loc).Format("2006-01-02 15:04 MST")
	}
	return "expired on " + exp.In(loc).Format("2006-01-02 15:04 MST")
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
