package earner

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
)

// signinView is the sign-in form's page.
type signinView struct {
	frame
	Heading, Lead, Email, Error string
}

// home is the collection with a session, the sign-in form without one.
func (h *Handler) home(w http.ResponseWriter, r *http.Request) error {
	if sess, ok := h.d.SignIn.Current(r); ok {
		return h.collection(w, r, sess, http.StatusOK, "")
	}
	f := h.frame(r, "")
	return h.render(w, http.StatusOK, "signin", signinView{frame: f, Heading: f.T["signin_title"], Lead: f.T["signin_lead"]})
}

// requestLink answers every well-formed address alike, whatever was issued to it and whatever the limits said:
// the same status, the same page, and no lookup of the address on this path (signin.Request).
func (h *Handler) requestLink(w http.ResponseWriter, r *http.Request) error {
	f := h.frame(r, "")
	if !readForm(w, r) {
		return h.render(w, http.StatusBadRequest, "signin", signinView{frame: f, Heading: f.T["signin_title"], Lead: f.T["signin_lead"], Error: f.T["err_form"]})
	}
	lang := r.PostFormValue("lang")
	if lang != "ko" && lang != "en" {
		lang = f.Lang
	}
	err := h.d.SignIn.Request(r.Context(), r, r.PostFormValue("email"), lang)
	if errors.Is(err, signin.ErrBadAddress) {
		shown := r.PostFormValue("email")
		if len(shown) > 254 {
			shown = ""
		}
		return h.render(w, http.StatusBadRequest, "signin", signinView{frame: f, Heading: f.T["signin_title"], Lead: f.T["signin_lead"],
			Email: shown, Error: f.T["signin_bad"]})
	}
	if err != nil {
		return err
	}
	return h.render(w, http.StatusOK, "sent", f)
}

// confirmView is the page a link opens: one button. A GET never uses the link, so a mail scanner that fetches
// every link of a message cannot spend it; the person's press (a POST) does.
type confirmView struct {
	frame
	Action string
}

func (h *Handler) confirmLink(w http.ResponseWriter, r *http.Request) error {
	privateHeaders(w)
	f := h.frame(r, texts(pagekit.PickLang(r))["link_title"])
	return h.render(w, http.StatusOK, "confirm", confirmView{frame: f, Action: Prefix + "/sign-in/" + url.PathEscape(r.PathValue("token"))})
}

// redeemLink signs in: a new session and its cookie, then the collection (303). A used, expired or unknown link is
// a page that says so, with a fresh form (410).
func (h *Handler) redeemLink(w http.ResponseWriter, r *http.Request) error {
	privateHeaders(w)
	if !sameOrigin(r, h.d.URLs.BaseURL) { // a cross-site post would sign the browser in as someone else
		f := h.frame(r, "")
		return h.render(w, http.StatusForbidden, "signin", signinView{frame: f, Heading: f.T["link_invalid_title"], Lead: f.T["link_invalid_lead"]})
	}
	_, err := h.d.SignIn.Redeem(r.Context(), w, r, r.PathValue("token"))
	if errors.Is(err, signin.ErrLinkInvalid) {
		f := h.frame(r, "")
		return h.render(w, http.StatusGone, "signin", signinView{frame: f, Heading: f.T["link_invalid_title"], Lead: f.T["link_invalid_lead"]})
	}
	if err != nil {
		return err
	}
	h.d.Tally.Add(stats.EarnerSignIn)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
	return nil
}

// sameOrigin reports whether r's Origin header, when the browser sent one, is the service's own.
func sameOrigin(r *http.Request, base string) bool {
	o := r.Header.Get("Origin")
	if o == "" { // no Origin: not a browser's cross-site form post (browsers send it on every POST)
		return true
	}
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	return o == u.Scheme+"://"+u.Host || o == "http://"+r.Host || o == "https://"+r.Host
}

func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) error {
	sess, ok := h.session(w, r)
	if !ok {
		return nil
	}
	_ = sess
	if err := h.d.SignIn.SignOut(w, r); err != nil {
		return err
	}
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
	return nil
}

func (h *Handler) signOutEverywhere(w http.ResponseWriter, r *http.Request) error {
	sess, ok := h.session(w, r)
	if !ok {
		return nil
	}
	if err := h.d.SignIn.SignOutEverywhere(r.Context(), w, sess); err != nil {
		return err
	}
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
	return nil
}

// session is the gate of every state-changing route: a live session and its CSRF token in the form, checked
// before anything is read or written. Without a session: back to the sign-in form (303); a missing or wrong
// token: 403 with a page that says the form expired. false means the answer is written.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) (signin.Session, bool) {
	privateHeaders(w)
	sess, ok := h.d.SignIn.Current(r)
	if !ok {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return sess, false
	}
	if !readForm(w, r) {
		_ = h.notice(w, r, http.StatusRequestEntityTooLarge, "invalid", "err_form", "", Prefix, "home")
		return sess, false
	}
	if !h.d.SignIn.CheckCSRF(r, sess) {
		_ = h.notice(w, r, http.StatusForbidden, "invalid", "err_csrf", "", Prefix, "home")
		return sess, false
	}
	return sess, true
}
