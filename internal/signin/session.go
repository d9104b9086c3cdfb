package signin

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/badged/badged/db"
)

// CSRFField is the form field every state-changing form carries: Session.CSRF.
const CSRFField = "csrf"

// Session is a signed-in person of one audience.
type Session struct {
	Audience Audience
	Email    string // lower case
	CSRF     string // the token of this session's forms
	Since    time.Time
}

// Redeem follows the link's token: on a live, unused link of this audience it marks the link used, starts a new
// session (a new id, whatever cookie r carried; the old session of r, if any, ends) and sets its cookie on w.
// Otherwise ErrLinkInvalid: used, expired, unknown, malformed or another audience's.
func (s *Service) Redeem(ctx context.Context, w http.ResponseWriter, r *http.Request, token string) (Session, error) {
	aud := string(s.cfg.Audience)
	if !wellFormed(token) {
		s.cfg.Metrics.SigninLink(aud, "invalid")
		return Session{}, ErrLinkInvalid
	}
	now := s.cfg.Clock()
	id, csrf := randomToken(), randomToken()
	var email string
	err := s.cfg.DB.InTx(ctx, func(q *db.Queries) error {
		var err error
		email, err = q.UseSigninLink(ctx, db.UseSigninLinkParams{TokenHash: digest(token), Audience: aud, Now: now})
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrLinkInvalid
		}
		if err != nil {
			return err
		}
		if old, ok := s.cookieID(r); ok { // no session fixation: what the browser had before ends here
			if err := q.DeleteSigninSession(ctx, db.DeleteSigninSessionParams{IDHash: digest(old), Audience: aud}); err != nil {
				return err
			}
		}
		return q.CreateSigninSession(ctx, db.CreateSigninSessionParams{IDHash: digest(id), Audience: aud, Email: email,
			Csrf: csrf, Now: now, ExpiresAt: now.Add(s.cfg.MaxAge)})
	})
	if errors.Is(err, ErrLinkInvalid) {
		s.cfg.Metrics.SigninLink(aud, "invalid")
		return Session{}, err
	}
	if err != nil {
		return Session{}, fmt.Errorf("signin: redeem: %w", err)
	}
	s.cfg.Metrics.SigninLink(aud, "signed_in")
	s.setCookie(w, id, int(s.cfg.MaxAge.Seconds()))
	return Session{Audience: s.cfg.Audience, Email: email, CSRF: csrf, Since: now}, nil
}

// Current returns r's session: false without a cookie of this audience, or when its session is unknown, idle
// longer than Idle, past MaxAge or signed out. A live session's idle clock restarts.
func (s *Service) Current(r *http.Request) (Session, bool) {
	id, ok := s.cookieID(r)
	if !ok {
		return Session{}, false
	}
	row, err := s.cfg.DB.TouchSigninSession(r.Context(), db.TouchSigninSessionParams{IDHash: digest(id),
		Audience: string(s.cfg.Audience), Now: s.cfg.Clock(), IdleSeconds: s.cfg.Idle.Seconds()})
	if err != nil {
		return Session{}, false // no row, or the database failing: signed out either way, never signed in
	}
	return Session{Audience: s.cfg.Audience, Email: row.Email, CSRF: row.Csrf, Since: row.CreatedAt}, true
}

// CheckCSRF reports whether r's form carries sess's CSRF token (compared in constant time). Call it on every
// state-changing request before anything is written.
func (s *Service) CheckCSRF(r *http.Request, sess Session) bool {
	got := r.PostFormValue(CSRFField)
	return sess.CSRF != "" && len(got) == len(sess.CSRF) && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) == 1
}

// SignOut ends r's session, if any, and clears its cookie.
func (s *Service) SignOut(w http.ResponseWriter, r *http.Request) error {
	s.setCookie(w, "", -1)
	id, ok := s.cookieID(r)
	if !ok {
		return nil
	}
	return s.cfg.DB.DeleteSigninSession(r.Context(), db.DeleteSigninSessionParams{IDHash: digest(id), Audience: string(s.cfg.Audience)})
}

// SignOutEverywhere ends every session of sess's address in this audience, on every device, and clears r's cookie.
func (s *Service) SignOutEverywhere(ctx context.Context, w http.ResponseWriter, sess Session) error {
	s.setCookie(w, "", -1)
	_, err := s.cfg.DB.DeleteSigninSessionsOf(ctx, db.DeleteSigninSessionsOfParams{Audience: string(s.cfg.Audience), Email: sess.Email})
	return err
}

// Sweep deletes what can no longer be used: expired links, ended sessions, old limit windows (the Mailer's Run
// calls it now and then on one of the services it served).
func (s *Service) Sweep(ctx context.Context) error {
	return s.cfg.DB.SweepSignin(ctx, db.SweepSigninParams{Now: s.cfg.Clock(), IdleSeconds: s.cfg.Idle.Seconds()})
}

// cookieID is the session id r's cookie carries, when it has the shape of one.
func (s *Service) cookieID(r *http.Request) (string, bool) {
	c, err := r.Cookie(s.cookie)
	if err != nil || !wellFormed(c.Value) {
		return "", false
	}
	return c.Value, true
}

func (s *Service) setCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: value, Path: s.cfg.Prefix, MaxAge: maxAge,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// wellFormed reports whether t has the shape of a token randomToken makes (43 base64url characters), so that
// nothing else is hashed and looked up.
func wellFormed(t string) bool {
	if len(t) != 43 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}
