package console

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
)

// Session is who is signed in to the console: a person, known by address, and the token every form of their
// session carries (CSRF).
type Session struct {
	Email string // lower case
	CSRF  string
}

// SignIn is what the console needs of the mail-link sign-in, in the console's audience: the one place the console
// meets it, so that the sign-in package (internal/signin) is wired here and nowhere else.
type SignIn interface {
	// Current returns the request's session; false when it has none, or it expired.
	Current(r *http.Request) (Session, bool)
	// Invite mails address a sign-in link to the console (an invitation to an organization is one).
	Invite(ctx context.Context, r *http.Request, address string) error
	// Mount adds the sign-in routes under the console's router: the form (GET/POST /sign-in), the link
	// (/sign-in/{token}) and signing out.
	Mount(r chi.Router)
}

// Principal is who acts on an assertion through the API's own operations (AssertionAction): a member's
// organization and role, in the assertion's mode.
type Principal struct {
	Org           uuid.UUID
	OrgName, Role string
	Mode          string
}

// ActionResult is what the API answered: its status and, on an error, its code and message.
type ActionResult struct {
	Status        int
	Code, Message string
}

// AssertionAction runs the API's operation action ("cancel", "reissue") on an assertion as who (api provides it).
type AssertionAction func(ctx context.Context, who Principal, assertion uuid.UUID, action string) (ActionResult, error)
