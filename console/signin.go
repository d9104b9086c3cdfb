package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/pagekit"
	"github.com/badged/badged/internal/signin"
)

// MailSignIn is the console's SignIn: internal/signin's service of the console audience, with the console's
// pages around it (the form, "check your mail", an expired link, signing out).
type MailSignIn struct {
	svc *signin.Service
	h   *Handler // pages only (render, notice); set by Handler's Router
}

// NewMailSignIn adapts svc (signin.Console audience, Prefix "/console").
func NewMailSignIn(svc *signin.Service) *MailSignIn { return &MailSignIn{svc: svc} }

// SignInConfig is the console audience's part of a sign-in (internal/signin) on d, pages and cookie under
// /console. The caller adds the mailer, the base URL and the limits.
func SignInConfig(d *db.DB) signin.Config {
	return signin.Config{DB: d, Audience: signin.Console, Prefix: "/console", Eligible: eligible(d)}
}

// eligible is the console audience's rule for signin.Config.Eligible: a link goes only to a member of some
// organization (the answer on the form is the same either way).
func eligible(d *db.DB) func(context.Context, string) (bool, error) {
	return func(ctx context.Context, address string) (bool, error) {
		p, err := d.GetPersonByEmail(ctx, address)
		if db.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		orgs, err := d.ListMembershipsOfPerson(ctx, p.ID)
		return len(orgs) > 0, err
	}
}

func (m *MailSignIn) Current(r *http.Request) (Session, bool) {
	s, ok := m.svc.Current(r)
	return Session{Email: s.Email, CSRF: s.CSRF}, ok
}

// Invite mails address a link with the invitation's words, in the inviting owner's language.
func (m *MailSignIn) Invite(ctx context.Context, r *http.Request, address string) error {
	err := m.svc.Invite(ctx, address, pagekit.PickLang(r), invitationText)
	if errors.Is(err, signin.ErrLimited) {
		return nil // the membership stands; the person may ask for a link on the sign-in form
	}
	return err
}

func invitationText(lang, link string) (string, string) {
	if lang == pagekit.LangKO {
		return "badged 콘솔 초대", fmt.Sprintf("badged 콘솔의 기관 구성원으로 초대되었습니다.\n\n15분 안에 이 링크로 로그인하세요(한 번만 쓸 수 있습니다):\n%s\n\n초대를 기대하지 않았다면 이 메일을 무시하세요.\n", link)
	}
	return "Your invitation to the badged console", fmt.Sprintf("You have been made a member of an organization in the badged console.\n\nSign in within 15 minutes with this link (it works once):\n%s\n\nIf you did not expect this, ignore this mail.\n", link)
}

type signInPage struct {
	Sent, Expired, Bad bool
}

// Mount adds the sign-in form, the link and signing out.
func (m *MailSignIn) Mount(r chi.Router) {
	r.Get("/sign-in", func(w http.ResponseWriter, r *http.Request) {
		m.form(w, r, http.StatusOK, signInPage{Sent: r.URL.Query().Get("sent") == "1"})
	})
	r.Post("/sign-in", func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		err := m.svc.Request(r.Context(), r, r.PostFormValue("email"), pagekit.PickLang(r))
		switch {
		case errors.Is(err, signin.ErrBadAddress):
			m.form(w, r, http.StatusBadRequest, signInPage{Bad: true})
		case err != nil:
			m.h.fail(w, r, err)
		default: // the same answer for every well-formed address
			http.Redirect(w, r, "/console/sign-in?sent=1", http.StatusSeeOther)
		}
	})
	r.Get("/sign-in/{token}", func(w http.ResponseWriter, r *http.Request) {
		_, err := m.svc.Redeem(r.Context(), w, r, chi.URLParam(r, "token"))
		switch {
		case errors.Is(err, signin.ErrLinkInvalid):
			m.form(w, r, http.StatusGone, signInPage{Expired: true})
		case err != nil:
			m.h.fail(w, r, err)
		default:
			http.Redirect(w, r, "/console/", http.StatusSeeOther)
		}
	})
	r.Post("/sign-out", func(w http.ResponseWriter, r *http.Request) {
		s, ok := m.svc.Current(r)
		if !ok || !m.svc.CheckCSRF(r, s) {
			m.h.fail(w, r, errCSRF)
			return
		}
		var err error
		if r.PostFormValue("everywhere") == "1" {
			err = m.svc.SignOutEverywhere(r.Context(), w, s)
		} else {
			err = m.svc.SignOut(w, r)
		}
		if err != nil {
			m.h.fail(w, r, err)
			return
		}
		http.Redirect(w, r, "/console/sign-in", http.StatusSeeOther)
	})
}

func (m *MailSignIn) form(w http.ResponseWriter, r *http.Request, status int, p signInPage) {
	if err := m.h.render(w, status, "signin", m.h.newView(r, actor{}, "signIn", p)); err != nil {
		m.h.fail(w, r, err)
	}
}
