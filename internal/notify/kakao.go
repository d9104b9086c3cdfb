package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/badged/badged/internal/errcode"
)

// KakaoConfig configures the KakaoTalk sender. Providers of the KakaoTalk business message API differ in their
// field names; this sender speaks the JSON of kakaoRequest and expects kakaoResponse, and a small relay in front of
// a provider can translate.
type KakaoConfig struct {
	Endpoint     string // the URL that receives the POST
	APIKey       string
	APIKeyHeader string // the header that carries APIKey; "X-Api-Key" when empty
	SenderKey    string // the provider's key for the sending channel (the "plus friend")
	TemplateCode string // the approved message template
	// ReminderTemplateCode is the approved template of expiry reminders; TemplateCode when empty.
	ReminderTemplateCode string
	// Timeout bounds one request; 10s when zero. It is ignored when HTTPClient is set.
	Timeout    time.Duration
	HTTPClient *http.Client
}

// Kakao sends KakaoTalk notifications through a provider's HTTP API. It is safe for concurrent use.
type Kakao struct {
	cfg    KakaoConfig
	client *http.Client
}

var _ Sender = (*Kakao)(nil)

// NewKakao checks the configuration and returns the sender.
func NewKakao(cfg KakaoConfig) (*Kakao, error) {
	if cfg.Endpoint == "" || cfg.SenderKey == "" || cfg.TemplateCode == "" {
		return nil, errors.New("kakao: endpoint, sender key and template code are required")
	}
	if cfg.APIKeyHeader == "" {
		cfg.APIKeyHeader = "X-Api-Key"
	}
	client := cfg.HTTPClient
	if client == nil {
		timeout := cfg.Timeout
		if timeout == 0 {
			timeout = 10 * time.Second
		}
		client = &http.Client{Timeout: timeout}
	}
	return &Kakao{cfg: cfg, client: client}, nil
}

// kakaoRequest is the body posted for one message.
type kakaoRequest struct {
	MessageID         string            `json:"messageId"` // the same on every attempt, for the provider to dedupe
	SenderKey         string            `json:"senderKey"`
	TemplateCode      string            `json:"templateCode"`
	RecipientNo       string            `json:"recipientNo"`
	Content           string            `json:"content"` // the rendered text, for providers that want it whole
	TemplateParameter map[string]string `json:"templateParameter"`
}

// kakaoResponse is what a 2xx answer may carry; an empty body counts as success.
type kakaoResponse struct {
	Success *bool  `json:"success"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Send posts the message. A transport failure, a timeout, 408, 429 or 5xx is KAKAO_SERVER_ERROR (retryable); any
// other non-2xx answer or a 2xx with "success": false is KAKAO_SEND_FAILED.
func (k *Kakao) Send(ctx context.Context, n Notification) (Receipt, error) {
	content, err := renderKakao(n)
	if err != nil {
		return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "render kakao message", err)
	}
	id := n.kakaoID()
	code := k.cfg.TemplateCode
	if n.Reminder != nil && k.cfg.ReminderTemplateCode != "" {
		code = k.cfg.ReminderTemplateCode
	}
	params := map[string]string{
		"recipientName": n.RecipientName,
		"badgeName":     n.BadgeName,
		"issuerName":    n.IssuerName,
		"verifyUrl":     n.VerifyURL,
		"badgeImageUrl": n.BadgeImageURL,
	}
	// KakaoTalk links only http(s): the message carries the offer's landing page, whose button opens the wallet.
	if d := newTemplateData(n); d.WalletPageURL != "" {
		params["walletOfferUrl"] = d.WalletPageURL
	}
	body, err := json.Marshal(kakaoRequest{
		MessageID:         id,
		SenderKey:         k.cfg.SenderKey,
		TemplateCode:      code,
		RecipientNo:       normalizePhone(n.Phone),
		Content:           content,
		TemplateParameter: params,
	})
	if err != nil {
		return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "encode kakao request", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.cfg.Endpoint, bytes.NewReader(body))
	if err != nil {
		return Receipt{}, errcode.Wrap(errcode.NotificationDeliveryFailed, "build kakao request", err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Idempotency-Key", id)
	if k.cfg.APIKey != "" {
		req.Header.Set(k.cfg.APIKeyHeader, k.cfg.APIKey)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return Receipt{}, errcode.Wrap(errcode.KakaoServerError, "kakao request", err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return Receipt{}, errcode.Wrap(errcode.KakaoServerError, "read kakao response", err)
	}
	if err := classifyKakao(resp.StatusCode, respBody); err != nil {
		return Receipt{}, err
	}
	return Receipt{Channel: KakaoTalk, MessageID: id}, nil
}

func classifyKakao(status int, body []byte) error {
	detail := fmt.Errorf("status %d: %s", status, strings.TrimSpace(string(body)))
	switch {
	case status >= 500, status == http.StatusTooManyRequests, status == http.StatusRequestTimeout:
		return errcode.Wrap(errcode.KakaoServerError, "kakao provider unavailable", detail)
	case status < 200 || status > 299:
		return errcode.Wrap(errcode.KakaoSendFailed, "kakao provider refused", detail)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var r kakaoResponse
	if err := json.Unmarshal(body, &r); err != nil {
		// The provider accepted the request; a body we cannot read does not undo that.
		return nil
	}
	if r.Success != nil && !*r.Success {
		return errcode.Wrap(errcode.KakaoSendFailed, "kakao provider refused",
			fmt.Errorf("code %s: %s", r.Code, r.Message))
	}
	return nil
}

// normalizePhone drops the spaces, hyphens and parentheses people write in phone numbers.
func normalizePhone(p string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '(', ')', '.':
			return -1
		}
		return r
	}, strings.TrimSpace(p))
}
