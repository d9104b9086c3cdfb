package wallet

import (
	"fmt"
	"time"
)

// The guard of the wallet protocols against guessing and flooding. Every count lives in Postgres (migration
// 0029_wallet_guard.sql), so it holds across any number of API processes and restarts.
//
//   - tx_code: a 6-digit second factor. Wrong guesses are counted per offer, across all the pre-authorized codes
//     its URI minted, under the offer's row lock (token.go); the maxTxCodeFailures-th suspends the offer for good.
//     Its owner makes a new one: the integrator through the API (POST …/credential-offers), or, for an offer of
//     the issue notice (which asks no tx_code, so is never suspended), `badged admin notification resend`.
//   - codes: each fetch of an offer URI mints a fresh pre-authorized code; at most maxCodesPerOffer in the codes'
//     lifetime, then 429 with Retry-After (offer.go).
//   - nonces: the anonymous nonce endpoint gives a client (web.ClientAddr) at most maxNoncesPerClient unused,
//     unexpired nonces, then 429 with Retry-After (token.go); a claim deletes the nonce it uses.
//
// Expired codes, tokens and nonces are deleted by the worker's wallet sweep (activities/walletsweep.go: every 10
// minutes; nonces once expired, codes and tokens a day after, for the logs).
const (
	maxTxCodeFailures  = 5
	maxCodesPerOffer   = 10
	maxNoncesPerClient = 100
	// nonceRetryAfter is the Retry-After of a client at its nonce bound: its oldest nonce expires within nonceTTL,
	// a claim frees one at once.
	nonceRetryAfter = time.Minute
)

// txCodeRefusal describes a wrong tx_code to the wallet, which shows it to its user: how many tries are left, or
// that there are none.
func txCodeRefusal(failures int, suspended bool) string {
	if suspended {
		return fmt.Sprintf("the tx_code is wrong; after %d wrong tx_codes this offer is suspended: ask the issuer for a new offer", maxTxCodeFailures)
	}
	left := maxTxCodeFailures - failures
	tries := "tries"
	if left == 1 {
		tries = "try"
	}
	return fmt.Sprintf("the tx_code is wrong; %d %s left before this offer is suspended; fetch the offer again for a new pre-authorized code", left, tries)
}

// suspendedProblem is offerProblem's word for a suspended offer.
var suspendedProblem = fmt.Sprintf("the offer was suspended after %d wrong tx_codes; ask the issuer for a new offer", maxTxCodeFailures)
