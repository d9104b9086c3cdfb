package activities

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestRenewalLink(t *testing.T) {
	id := uuid.MustParse("0b7c2a8e-4f1d-4e57-9d0a-3c1b2e4f5a6b")
	ptr := func(s string) *string { return &s }
	for _, tt := range []struct {
		url  *string
		want string
	}{
		{nil, ""},
		{ptr(""), ""},
		{ptr("https://academy.example/renew/{assertionId}"), "https://academy.example/renew/" + id.String()},
		{ptr("https://academy.example/renew?a={assertionId}&src=mail"), "https://academy.example/renew?a=" + id.String() + "&src=mail"},
		{ptr("https://academy.example/renew"), "https://academy.example/renew?assertionId=" + id.String()},
		{ptr("https://academy.example/renew?src=mail"), "https://academy.example/renew?assertionId=" + id.String() + "&src=mail"},
	} {
		require.Equal(t, tt.want, RenewalLink(tt.url, id), "%v", tt.url)
	}
}
