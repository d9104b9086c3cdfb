// Package notice composes the message a recipient gets about an issued credential, from the stored assertion, and
// re-sends it on an operator's request. The notify step of the worker (activities), its expiry reminders and
// `badged admin notification resend` all compose through Composer, so a resent mail is the worker's mail.
//
// It sits between the database and the senders: it may import db, internal/issuer (links), internal/blob (the
// inline badge), internal/oid4vci (the wallet offer) and internal/notify (the message and its senders), and is
// imported by activities and cmd/badged. internal/notify itself stays free of the database.
package notice
