package wallet

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"net/http"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/oid4vci"
	"github.com/badged/badged/internal/web"
	"github.com/badged/badged/page"
)

// The landing page of a wallet offer, GET /oid4vci/offers/{offerId}/open: what the recipient's mail and KakaoTalk
// message link (their clients drop openid-credential-offer:// links), with the QR code for a wallet on another
// device and a button with the wallet link for this one. Only the offer's id (random, 122 bits) reaches it; the
// public badge page never links it. It mints no pre-authorized code: the wallet's fetch of the offer URI does.

var offerPageTemplate = template.Must(template.New("offer").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>{{.T.title}}</title>
<style>body{font-family:sans-serif;color:#222;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
a.button{display:inline-block;padding:.75rem 1.25rem;background:#1a56db;color:#fff;border-radius:.5rem;text-decoration:none}
.note{color:#555;font-size:.9rem}</style></head>
<body><main>
<h1>{{.T.title}}</h1>
{{- if .Problem}}
<p>{{.T.ended}}</p><p class="note">{{.Problem}}</p>
{{- else}}
<p>{{.T.intro}}</p>
<p><a class="button" href="{{.Link}}">{{.T.open}}</a></p>
{{- if .LCW}}
<p><a href="{{.LCW}}">{{.T.lcw}}</a></p>
{{- end}}
<p>{{.T.scan}}</p>
<p><img src="{{.QR}}" alt="{{.T.qrAlt}}" width="300" height="300"></p>
<p class="note">{{.T.private}}</p>
{{- end}}
</main></body></html>
`))

var offerPageText = map[string]map[string]string{
	page.LangEN: {
		"title":   "Add your badge to a wallet",
		"intro":   "Your badge can live in a wallet app you control (one that supports OpenID4VCI). The wallet receives a copy bound to its own key.",
		"open":    "Open in my wallet",
		"scan":    "On a computer, or if the button opens nothing: scan this QR code with your wallet app.",
		"qrAlt":   "QR code of the wallet offer",
		"private": "This offer is for you alone. Do not share this page.",
		"ended":   "This offer can no longer be used.",
		"lcw":     "Using the Learner Credential Wallet? Open the badge in it",
	},
	page.LangKO: {
		"title":   "지갑에 배지 담기",
		"intro":   "배지를 직접 관리하는 지갑 앱(OpenID4VCI 지원)에 담을 수 있습니다. 지갑은 자신의 키에 연결된 사본을 받습니다.",
		"open":    "지갑 앱에서 열기",
		"scan":    "컴퓨터에서 보거나 버튼을 눌러도 아무것도 열리지 않으면, 지갑 앱으로 이 QR 코드를 스캔하세요.",
		"qrAlt":   "지갑 제안 QR 코드",
		"private": "이 제안은 본인만 사용할 수 있습니다. 이 페이지를 공유하지 마세요.",
		"ended":   "이 제안은 더 이상 사용할 수 없습니다.",
		"lcw":     "Learner Credential Wallet을 쓰시나요? 그 앱에서 배지 열기",
	},
}

// offerPage serves the landing page: 404 for an unknown offer, 410 (the page saying why) for an ended one.
func (h *Handler) offerPage(w http.ResponseWriter, r *http.Request) {
	lang := page.PickLang(r)
	id, err := web.ParseUUID(r.PathValue("offerId"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	o, err := h.db.GetLiveOffer(r.Context(), id)
	if db.IsNotFound(err) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "offer page", "offerId", id, "err", err)
		http.Error(w, "the page could not be shown; try again", http.StatusInternalServerError)
		return
	}
	data := struct {
		Lang, Problem string
		T             map[string]string
		Link, QR, LCW template.URL
	}{Lang: lang, T: offerPageText[lang]}
	status := http.StatusOK
	if p := offerProblem(o); p != "" {
		data.Problem, status = p, http.StatusGone
	} else {
		link := oid4vci.OfferLink(h.offerURI(id))
		png, err := oid4vci.OfferQR(link)
		if err != nil {
			h.log.ErrorContext(r.Context(), "offer page", "offerId", id, "err", err)
			http.Error(w, "the page could not be shown; try again", http.StatusInternalServerError)
			return
		}
		// Both marked safe after they were built here: the link's scheme is the protocol's, the image a data: PNG.
		data.Link = template.URL(link)
		data.QR = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
		if o.CredentialOffer.TxCodeHash == nil { // the LCW cannot enter a tx_code: no exchange link then (exchange.go)
			data.LCW = template.URL(lcwRequestLink(h.issuer.IssuerID(o.CredentialOffer.OrgID, o.CredentialOffer.Mode), h.exchangeURL(id), id))
		}
	}
	var b bytes.Buffer
	if err := offerPageTemplate.Execute(&b, data); err != nil {
		h.log.ErrorContext(r.Context(), "offer page", "offerId", id, "err", err)
		http.Error(w, "the page could not be shown; try again", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", page.CSP("")) // its images are data: and its own
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Robots-Tag", "noindex")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
