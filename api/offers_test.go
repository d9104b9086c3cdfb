package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCredentialOffers_KeyedAPI: the keyed API's side of wallet offers (the protocols are package wallet's tests):
// a manager key of the organization creates an offer (with and without a tx_code) and withdraws it; another
// organization's key, a viewer key, an unknown offer and an assertion that can no longer be offered get the
// contract's codes.
func TestCredentialOffers_KeyedAPI(t *testing.T) {
	f := newPageFixture(t)
	a := f.issueSigned(t, "2025-02-09T16:30:00Z", true, "Kim Wallet")["Kim Wallet"]
	// Valid for a year from now: the offer checks the assertion's expiry against the real clock.
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET expired_at = now() + interval '1 year' WHERE id = $1", a.ID)
	require.NoError(t, err)
	offers := "/public/v3/assertions/" + a.ID.String() + "/credential-offers"

	r := f.do(t, http.MethodPost, offers, f.keys["manager"], "")
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	plain := r.Body["data"].(map[string]any)
	require.Nil(t, plain["txCode"])
	require.True(t, strings.HasPrefix(jstr(t, plain, "offer"), "openid-credential-offer://?credential_offer_uri="))
	require.Equal(t, baseURL+"/oid4vci/offers/"+jstr(t, plain, "id"), jstr(t, plain, "credentialOfferUri"))
	require.Equal(t, baseURL+"/exchanges/"+jstr(t, plain, "id"), jstr(t, plain, "exchangeUrl"))
	require.True(t, strings.HasPrefix(jstr(t, plain, "lcwRequest"), "https://lcw.app/request.html?"))

	r = f.do(t, http.MethodPost, offers, f.keys["manager"], `{"txCode":true}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	withTx := r.Body["data"].(map[string]any)
	require.Regexp(t, `^[0-9]{6}$`, jstr(t, withTx, "txCode"))
	require.Nil(t, withTx["lcwRequest"], "the Learner Credential Wallet cannot enter a tx_code")

	r = f.do(t, http.MethodDelete, offers+"/"+jstr(t, plain, "id"), f.keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, true, jget(t, r.Body, "data.deleted"))

	r = f.do(t, http.MethodPost, offers, f.keys["otherManager"], "")
	requireError(t, r, offers, http.StatusNotFound, "AST001")
	r = f.do(t, http.MethodPost, offers, f.keys["viewer"], "")
	requireError(t, r, offers, http.StatusForbidden, "ORG004")
	r = f.do(t, http.MethodDelete, offers+"/"+f.vars["{missing}"], f.keys["manager"], "")
	requireError(t, r, offers+"/"+f.vars["{missing}"], http.StatusNotFound, "AST041")
	// A cancelled assertion cannot be offered.
	r = f.do(t, http.MethodPost, "/public/v3/assertions/"+a.ID.String()+"/cancel", f.keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	r = f.do(t, http.MethodPost, offers, f.keys["manager"], "")
	requireError(t, r, offers, http.StatusConflict, "AST040")
}
