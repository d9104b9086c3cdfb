package oid4vci

import "github.com/google/uuid"

// CopyID is the id of a wallet copy of a credential (its own, not the assertion's): a urn:uuid: of the copy's row.
// The copy carries it as its id (and a VC-JWT as jti), the keyed API lists it and the claim's webhook event names it.
func CopyID(id uuid.UUID) string { return "urn:uuid:" + id.String() }
