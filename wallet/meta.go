package wallet

import (
	"crypto"
	"crypto/ed25519"
	"net/http"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/web"
)

// OpenID4VCI 1.0, pre-authorized code flow: every organization is its own credential issuer, whose identifier is
// its issuer id (issuer.Service.IssuerID: {base}/issuers/{org}, the test issuer {base}/issuers/{org}/test), so
// the wallet shows the organization, the proof's aud names it, and its metadata sits at the well-known path with
// that path as suffix. The token, nonce, credential and notification endpoints are shared by all issuers: the
// access token says which offer, assertion and issuer a request is about.

// Credential configuration ids. An offer lists them all; the wallet picks the format it supports.
const (
	cfgLDP       = "OpenBadgeCredential_ldp_vc"
	cfgJWTRS256  = "OpenBadgeCredential_jwt_vc_json"
	cfgJWTEdDSA  = "OpenBadgeCredential_jwt_vc_json_EdDSA"
	preAuthGrant = "urn:ietf:params:oauth:grant-type:pre-authorized_code"
)

// walletConfigs are the configuration ids in the order offers list them.
var walletConfigs = []string{cfgLDP, cfgJWTRS256, cfgJWTEdDSA}

// formatOf is the format of a configuration id ("" for an unknown one).
func formatOf(cfg string) string {
	switch cfg {
	case cfgLDP:
		return "ldp_vc"
	case cfgJWTRS256, cfgJWTEdDSA:
		return "jwt_vc_json"
	}
	return ""
}

// issuerHandler is a handler of one issuer's documents: the organization its path names, in the mode of the route.
type issuerHandler func(w http.ResponseWriter, r *http.Request, org uuid.UUID, mode string) error

// forIssuer binds an issuer document's handler to the mode of its route (the /test suffix is the test issuer) and
// answers its failure through Deps.Handle.
func (h *Handler) forIssuer(mode string, fn issuerHandler) http.HandlerFunc {
	return h.handle(func(w http.ResponseWriter, r *http.Request) error {
		org, err := web.ParseUUID(r.PathValue("orgId"))
		if err != nil {
			return web.NotFound("no such issuer")
		}
		return fn(w, r, org, mode)
	})
}

func (h *Handler) issuerMetadata(w http.ResponseWriter, r *http.Request, org uuid.UUID, mode string) error {
	o, err := h.db.GetOrganization(r.Context(), org)
	if err != nil {
		if db.IsNotFound(err) {
			return web.NotFound("no such issuer")
		}
		return err
	}
	name := o.Name
	if mode == apikey.ModeTest {
		name = "[TEST] " + name
	}
	display := []map[string]any{{"name": name, "locale": "ko"}, {"name": name, "locale": "en"}}
	if o.LogoMediaID != nil {
		logo := map[string]any{"uri": h.baseURL + "/media/" + o.LogoMediaID.String() + "/small", "alt_text": name}
		for _, d := range display {
			d["logo"] = logo
		}
	}
	binding := []string{"did:key", "did:jwk", "jwk"}
	proofAlgs := make([]string, len(oid4vci.ProofAlgs))
	for i, a := range oid4vci.ProofAlgs {
		proofAlgs[i] = string(a)
	}
	proofs := map[string]any{"jwt": map[string]any{"proof_signing_alg_values_supported": proofAlgs}}
	credDisplay := []map[string]any{{"name": "오픈 배지", "locale": "ko", "background_color": "#1f3a5f", "text_color": "#ffffff"},
		{"name": "Open Badge", "locale": "en", "background_color": "#1f3a5f", "text_color": "#ffffff"}}
	types := []string{"VerifiableCredential", "OpenBadgeCredential"}
	// display stands under credential_metadata, where OpenID4VCI 1.0 reads it, and at the configuration's top level,
	// where Implementer's Draft 2 (draft 15) wallets read it (the package doc says which versions are served); a
	// 1.0 wallet ignores the member it does not know.
	config := func(format string, algs []string, def map[string]any) map[string]any {
		return map[string]any{"format": format, "cryptographic_binding_methods_supported": binding,
			"credential_signing_alg_values_supported": algs, "proof_types_supported": proofs,
			"credential_definition": def, "credential_metadata": map[string]any{"display": credDisplay},
			"display": credDisplay}
	}
	ldpDef := map[string]any{"@context": []string{"https://www.w3.org/ns/credentials/v2",
		"https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"}, "type": types}
	jwtDef := map[string]any{"type": types}
	h.writeProtocolJSON(w, http.StatusOK, map[string]any{
		"credential_issuer":     h.issuer.IssuerID(org, mode),
		"credential_endpoint":   h.endpoint("/credential"),
		"nonce_endpoint":        h.endpoint("/nonce"),
		"notification_endpoint": h.endpoint("/notification"),
		"display":               display,
		"credential_configurations_supported": map[string]any{
			cfgLDP:      config("ldp_vc", []string{"eddsa-rdfc-2022"}, ldpDef),
			cfgJWTRS256: config("jwt_vc_json", []string{"RS256"}, jwtDef),
			cfgJWTEdDSA: config("jwt_vc_json", []string{"EdDSA"}, jwtDef),
		},
	}, true)
	return nil
}

func (h *Handler) authServerMetadata(w http.ResponseWriter, _ *http.Request, org uuid.UUID, mode string) error {
	h.writeProtocolJSON(w, http.StatusOK, map[string]any{
		"issuer":                                          h.issuer.IssuerID(org, mode),
		"token_endpoint":                                  h.endpoint("/token"),
		"grant_types_supported":                           []string{preAuthGrant},
		"response_types_supported":                        []string{},
		"token_endpoint_auth_methods_supported":           []string{"none"},
		"pre-authorized_grant_anonymous_access_supported": true,
	}, true)
	return nil
}

// issuerJWKS publishes the keys that verify the issuer's VC-JWTs (the kid of each names its URL below).
func (h *Handler) issuerJWKS(w http.ResponseWriter, r *http.Request, org uuid.UUID, mode string) error {
	keys, err := h.issuerJWKs(r, org, mode)
	if err != nil {
		return err
	}
	h.writeProtocolJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: keys}, true)
	return nil
}

// issuerJWK answers one key of the JWKS: a VC-JWT's kid dereferences to it.
func (h *Handler) issuerJWK(w http.ResponseWriter, r *http.Request, org uuid.UUID, mode string) error {
	keys, err := h.issuerJWKs(r, org, mode)
	if err != nil {
		return err
	}
	want := h.issuer.IssuerID(org, mode) + "/jwks/" + r.PathValue("kid")
	for _, k := range keys {
		if k.KeyID == want {
			h.writeProtocolJSON(w, http.StatusOK, k, true)
			return nil
		}
	}
	return web.NotFound("no such key")
}

func (h *Handler) issuerJWKs(r *http.Request, org uuid.UUID, mode string) ([]jose.JSONWebKey, error) {
	var pubs []crypto.PublicKey
	ed, found, err := h.issuer.PublicKey(r.Context(), org, mode)
	if err != nil {
		return nil, err
	}
	if found {
		pubs = append(pubs, ed25519.PublicKey(ed))
	}
	rsaPub, found, err := h.issuer.RSAPublicKey(r.Context(), org, mode)
	if err != nil {
		return nil, err
	}
	if found {
		pubs = append(pubs, rsaPub)
	}
	if len(pubs) == 0 {
		return nil, web.NotFound("the issuer has no keys yet")
	}
	keys := make([]jose.JSONWebKey, 0, len(pubs))
	for _, p := range pubs {
		kid, err := h.issuerKid(org, mode, p)
		if err != nil {
			return nil, err
		}
		k, err := oid4vci.JWK(p, kid)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// issuerKid is the kid of an issuer key: the URL that answers its JWK ({issuer}/jwks/{RFC 7638 thumbprint}).
func (h *Handler) issuerKid(org uuid.UUID, mode string, pub crypto.PublicKey) (string, error) {
	t, err := oid4vci.Thumbprint(pub)
	if err != nil {
		return "", err
	}
	return h.issuer.IssuerID(org, mode) + "/jwks/" + t, nil
}
