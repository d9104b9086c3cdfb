package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/notify"
)

// provider is an httptest Kakao provider that records requests and answers with a fixed status and body.
type provider struct {
	status  int
	body    string
	headers []http.Header
	bodies  []map[string]any
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	p.headers = append(p.headers, r.Header.Clone())
	p.bodies = append(p.bodies, m)
	w.WriteHeader(p.status)
	_, _ = io.WriteString(w, p.body)
}

func kakaoNotification() notify.Notification {
	n := koreanNotification()
	n.Channel = notify.KakaoTalk
	n.Email = ""
	n.Phone = "010-1234-5678"
	return n
}

func mustKakao(t *testing.T, endpoint string) *notify.Kakao {
	t.Helper()
	k, err := notify.NewKakao(notify.KakaoConfig{
		Endpoint: endpoint, APIKey: "key-1", APIKeyHeader: "X-Secret-Key",
		SenderKey: "sender-1", TemplateCode: "BADGE_ISSUED",
	})
	require.NoError(t, err)
	return k
}

func TestKakaoSend(t *testing.T) {
	p := &provider{status: http.StatusOK, body: `{"success":true,"code":"0000"}`}
	srv := httptest.NewServer(p)
	defer srv.Close()

	r, err := mustKakao(t, srv.URL).Send(context.Background(), kakaoNotification())
	require.NoError(t, err)
	wantID := "0b4c1c2e-7f1a-4c55-9d7e-1f2a3b4c5d6e.kakao"
	require.Equal(t, notify.Receipt{Channel: notify.KakaoTalk, MessageID: wantID}, r)

	require.Len(t, p.bodies, 1)
	require.Equal(t, "key-1", p.headers[0].Get("X-Secret-Key"))
	require.Equal(t, wantID, p.headers[0].Get("Idempotency-Key"))
	b := p.bodies[0]
	require.Equal(t, "sender-1", b["senderKey"])
	require.Equal(t, "BADGE_ISSUED", b["templateCode"])
	require.Equal(t, "01012345678", b["recipientNo"])
	require.Equal(t, wantID, b["messageId"])
	require.Contains(t, b["content"], `김민지님, 한빛대학교에서 "데이터 분석 기초" 배지를 발급했습니다.`)
	params := b["templateParameter"].(map[string]any)
	require.Equal(t, "데이터 분석 기초", params["badgeName"])
	require.Equal(t, "https://badges.example.com/v/0b4c1c2e?x=1&y=2", params["verifyUrl"])
}

func TestKakaoErrorClasses(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   errcode.Code
	}{
		{"500", http.StatusInternalServerError, "boom", errcode.KakaoServerError},
		{"503", http.StatusServiceUnavailable, "", errcode.KakaoServerError},
		{"429", http.StatusTooManyRequests, "", errcode.KakaoServerError},
		{"400", http.StatusBadRequest, `{"success":false,"code":"E101","message":"bad number"}`, errcode.KakaoSendFailed},
		{"401", http.StatusUnauthorized, "", errcode.KakaoSendFailed},
		{"200 refused", http.StatusOK, `{"success":false,"code":"E200","message":"not a kakao user"}`,
			errcode.KakaoSendFailed},
		{"200 empty", http.StatusOK, "", ""},
		{"202 other body", http.StatusAccepted, "queued", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&provider{status: tt.status, body: tt.body})
			defer srv.Close()
			_, err := mustKakao(t, srv.URL).Send(context.Background(), kakaoNotification())
			require.Equal(t, tt.want, errcode.Of(err), "got %v", err)
		})
	}
	t.Run("provider down", func(t *testing.T) {
		srv := httptest.NewServer(&provider{status: http.StatusOK})
		srv.Close()
		_, err := mustKakao(t, srv.URL).Send(context.Background(), kakaoNotification())
		require.Equal(t, errcode.KakaoServerError, errcode.Of(err), "got %v", err)
	})
}

func TestNewKakaoRejectsBadConfig(t *testing.T) {
	_, err := notify.NewKakao(notify.KakaoConfig{Endpoint: "http://x", SenderKey: "s"})
	require.Error(t, err)
}
