package issuer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestObjectKeys(t *testing.T) {
	id := "6f1c2b8e-51a4-4d0e-8a57-2b6e0d2f9c11"
	require.Equal(t, "credentials/"+id+".json", CredentialKey(id))
	require.Equal(t, "certificates/"+id+"/0f1e.pdf", CertificateKey(id, "0f1e"))
	for ct, want := range map[string]string{
		"image/png":     "baked/" + id + ".png",
		"image/svg+xml": "baked/" + id + ".svg",
		"image/jpeg":    "baked/" + id + ".png", // JPEG is baked into PNG
		"":              "baked/" + id + ".png",
	} {
		require.Equal(t, want, BakedKey(id, ct), ct)
	}
}
