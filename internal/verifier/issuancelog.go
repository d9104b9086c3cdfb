package verifier

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"

	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuancelog"
)

// checkLog checks the `log` member of the credential's receipt, when the receipt has one: the credential is an
// entry of its issuer's issuance log (internal/issuancelog), its inclusion proof leads to the root of a checkpoint
// signed by the key that signed the credential, and that root rides in the anchor transaction when the receipt
// says so. A receipt without `log` adds no check (an issuer without a log, a credential not logged yet).
func checkLog(cred []byte, doc map[string]any, rep *Report, sig *credential.VerifyResult) (Check, bool) {
	if rep.receipt == nil {
		return Check{}, false
	}
	var r struct {
		chain.Receipt
		Log *issuancelog.ReceiptLog `json:"log"`
	}
	if err := json.Unmarshal(rep.receipt, &r); err != nil || r.Log == nil {
		return Check{}, false
	}
	c := Check{Name: "issuance log"}
	var key ed25519.PublicKey
	if sig != nil { // the key whose proof verified; the checkpoint must be signed by the same issuer key
		if _, frag, ok := strings.Cut(sig.VerificationMethod, "#"); ok {
			key, _ = credential.DecodeMultikey(frag)
		}
	}
	validFrom, _ := dateField(doc, "validFrom", "issuanceDate")
	anchorRoot := ""
	if r.Merkle != nil {
		anchorRoot = r.Merkle.Root
	}
	if origin, err := issuancelog.IssuerOrigin(rep.Issuer); err != nil || origin != r.Log.Origin {
		c.Result, c.Failed, c.Detail = ResultFailed, true, "the log "+r.Log.Origin+" is not the issuer's ("+rep.Issuer+"/log)"
		return c, true
	}
	what, err := r.Log.Check(rep.ID, cred, validFrom, key, anchorRoot)
	if err != nil {
		c.Result, c.Failed, c.Detail = ResultFailed, true, err.Error()
		return c, true
	}
	c.Result, c.Detail = ResultOK, what
	return c, true
}
