// Package anchorpool decides when the credentials waiting for an anchor transaction in one worker process go
// together: a small scheduler with its own clock. Credentials that arrive together (one big issuance's chunks,
// many small issuances at once) share one transaction; a lone credential is never held for a big batch.
//
// The pool knows credentials by id only; what a batch means (one anchor key and a Merkle proof each, in Postgres)
// is the Assign function of its user, the anchor step in activities. It imports nothing of this module, and its
// Clock is injectable so that its tests drive every decision without waiting.
package anchorpool
