package api

import (
	"crypto"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/oid4vci"
)

// OpenID4VCI 1.0, pre-authorized code flow: every organization is its own credential issuer, whose identifier is
// its issuer id (issuer.Service.IssuerID: {base}/issuers/{org}, the test issuer {base}/issuers/{org}/test), so
// the wallet shows the organization, the proof's aud names it, and its metadata sits at the well-known path with
// that path as suffix. The token, nonce, credential and notification endpoints are shared by all issuers: the
// access token says which offer, assertion and issuer a request is about.

// Credential configuration ids. An offer lists them all; the wallet picks the format it supports.
const (
	cfgLDP        = "OpenBadgeCredential_ldp_vc"
	cfgJWTRS256   = "OpenBadgeCredential_jwt_vc_json"
	cfgJWTEdDSA   = "OpenBadgeCredential_jwt_vc_json_EdDSA"
	preAuthGrant  = "urn:ietf:params:oauth:grant-type:pre-authorized_code"
	oid4vciPrefix = oid4vci.Prefix
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

// mountOID4VCI adds the OpenID4VCI routes (outside the versioned API: their bodies are the protocol's).
func (h *handler) mountOID4VCI(r chi.Router) {
	for _, suffix := range []string{"/issuers/{orgId}", "/issuers/{orgId}/test"} {
		r.Get("/.well-known/openid-credential-issuer"+suffix, h.handle(h.issuerMetadata))
		r.Get("/.well-known/oauth-authorization-server"+suffix, h.handle(h.authServerMetadata))
		// The form some wallets try first (the well-known segment appended): the same documents.
		r.Get(suffix+"/.well-known/openid-credential-issuer", h.handle(h.issuerMetadata))
		r.Get(suffix+"/.well-known/oauth-authorization-server", h.handle(h.authServerMetadata))
		r.Get(suffix+"/jwks", h.handle(h.issuerJWKS))
		r.Get(suffix+"/jwks/{kid}", h.handle(h.issuerJWK))
	}
	r.Get(oid4vciPrefix+"/offers/{offerId}", h.serveOffer)
	r.Get(oid4vciPrefix+"/offers/{offerId}/open", h.offerPage)
	r.Post(oid4vciPrefix+"/token", h.token)
	r.Post(oid4vciPrefix+"/nonce", h.nonce)
	r.Post(oid4vciPrefix+"/credential", h.credential)
	r.Post(oid4vciPrefix+"/notification", h.notification)
}

// issuerOf reads the issuer a metadata path names: the organization and the mode (the /test suffix).
func (h *handler) issuerOf(r *http.Request) (uuid.UUID, string, error) {
	org, err := parseUUID(chi.URLParam(r, "orgId"))
	if err != nil {
		return uuid.Nil, "", newError(codeNotFound, "no such issuer")
	}
	mode := apikey.ModeLive
	if rc := chi.RouteContext(r.Context()); rc != nil && containsTestSegment(rc.RoutePattern()) {
		mode = apikey.ModeTest
	}
	return org, mode, nil
}

// containsTestSegment: the route pattern is one of the test issuer's.
func containsTestSegment(pattern string) bool {
	return strings.Contains(pattern, "/issuers/{orgId}/test")
}

func (h *handler) endpoint(p string) string { return h.baseURL + oid4vciPrefix + p }

func (h *handler) issuerMetadata(w http.ResponseWriter, r *http.Request) error {
	org, mode, err := h.issuerOf(r)
	if err != nil {
		return err
	}
	o, err := h.db.GetOrganization(r.Context(), org)
	if err != nil {
		if db.IsNotFound(err) {
			return newError(codeNotFound, "no such issuer")
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
	proofs := map[string]any{"jwt": map[string]any{"proof_signing_alg_values_supported": []string{"EdDSA", "ES256"}}}
	credDisplay := []map[string]any{{"name": "오픈 배지", "locale": "ko", "background_color": "#1f3a5f", "text_color": "#ffffff"},
		{"name": "Open Badge", "locale": "en", "background_color": "#1f3a5f", "text_color": "#ffffff"}}
	types := []string{"VerifiableCredential", "OpenBadgeCredential"}
	config := func(format string, algs []string, def map[string]any) map[string]any {
		return map[string]any{"format": format, "cryptographic_binding_methods_supported": binding,
			"credential_signing_alg_values_supported": algs, "proof_types_supported": proofs,
			"credential_definition": def, "credential_metadata": map[string]any{"display": credDisplay},
			"display": credDisplay}
	}
	ldpDef := map[string]any{"@context": []string{"https://www.w3.org/ns/credentials/v2",
		"https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"}, "type": types}
	jwtDef := map[string]any{"type": types}
	iss := h.issuer.IssuerID(org, mode)
	h.writeProtocolJSON(w, http.StatusOK, map[string]any{
		"credential_issuer":     iss,
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

func (h *handler) authServerMetadata(w http.ResponseWriter, r *http.Request) error {
	org, mode, err := h.issuerOf(r)
	if err != nil {
		return err
	}
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
func (h *handler) issuerJWKS(w http.ResponseWriter, r *http.Request) error {
	keys, err := h.issuerJWKs(r)
	if err != nil {
		return err
	}
	h.writeProtocolJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: keys}, true)
	return nil
}

// issuerJWK answers one key of the JWKS: a VC-JWT's kid dereferences to it.
func (h *handler) issuerJWK(w http.ResponseWriter, r *http.Request) error {
	keys, err := h.issuerJWKs(r)
	if err != nil {
		return err
	}
	want := chi.URLParam(r, "kid")
	for _, k := range keys {
		if k.KeyID == h.jwkKidPrefix(r)+want {
			h.writeProtocolJSON(w, http.StatusOK, k, true)
			return nil
		}
	}
	return newError(codeNotFound, "no such key")
}

func (h *handler) jwkKidPrefix(r *http.Request) string {
	org, mode, _ := h.issuerOf(r)
	return h.issuer.IssuerID(org, mode) + "/jwks/"
}

func (h *handler) issuerJWKs(r *http.Request) ([]jose.JSONWebKey, error) {
	org, mode, err := h.issuerOf(r)
	if err != nil {
		return nil, err
	}
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
		return nil, newError(codeNotFound, "the issuer has no keys yet")
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
func (h *handler) issuerKid(org uuid.UUID, mode string, pub crypto.PublicKey) (string, error) {
	t, err := oid4vci.Thumbprint(pub)
	if err != nil {
		return "", err
	}
	return h.issuer.IssuerID(org, mode) + "/jwks/" + t, nil
}

// writeProtocolJSON answers a body of the OAuth / OpenID4VCI protocols (not the contract's envelope). Metadata may
// be cached briefly; token, nonce and credential answers are never stored (RFC 6749 §5.1). Which origins may read
// them is cors.go's to say.
func (h *handler) writeProtocolJSON(w http.ResponseWriter, status int, v any, public bool) {
	if public {
		w.Header().Set("Cache-Control", "public, max-age=300")
	} else {
		w.Header().Set("Cache-Control", "no-store")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		h.log.Warn("write response", "err", err)
	}
}

// oauthError answers a refusal in the protocol's shape; status 0 means 400.
func (h *handler) oauthError(w http.ResponseWriter, status int, e *oid4vci.Error) {
	if status == 0 {
		status = http.StatusBadRequest
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer error="`+e.Code+`", error_description="`+sanitizeHeader(e.Description)+`"`)
	}
	h.writeProtocolJSON(w, status, map[string]string{"error": e.Code, "error_description": e.Description}, false)
}

func sanitizeHeader(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			out = append(out, c)
		}
	}
	return string(out)
}

// readProtocolBody reads at most limit bytes of a protocol request; a larger body is refused with code.
func readProtocolBody(w http.ResponseWriter, r *http.Request, limit int64, code string) ([]byte, *oid4vci.Error) {
	if r.ContentLength > limit {
		return nil, oid4vci.Errorf(code, "the request body is larger than %d bytes", limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, oid4vci.Errorf(code, "the request body is larger than %d bytes", limit)
		}
		return nil, oid4vci.Errorf(code, "the request body could not be read")
	}
	return body, nil
}
