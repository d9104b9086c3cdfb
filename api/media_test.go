package api_test

import (
	"bytes"
	"image"
	_ "image/jpeg" // DecodeConfig of the served variants
	_ "image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/media"
)

func TestUploadImage(t *testing.T) {
	e := newEnv(t)
	org := mustOrg(t, e.d, "Media Org")
	key, _ := mustKey(t, e.d, org, apikey.RoleManager)
	pngData := mustPNG(t, 600, 300, false)

	cases := []struct {
		name        string
		data        []byte
		contentType string
		svg         bool
	}{
		{"png", pngData, media.ContentTypePNG, false},
		{"jpeg", mustJPEG(t, 40, 30), media.ContentTypeJPEG, false},
		{"svg", []byte(testSVG), media.ContentTypeSVG, true},
	}
	uploaded := 0
	for _, tc := range cases {
		for _, v := range testVersions {
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				r := e.upload(t, v, key, tc.data)
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
				uploaded++
				require.Equal(t, true, r.Body["success"])
				data := r.Body["data"].(map[string]any)
				id := jstr(t, data, "id")
				require.ElementsMatch(t, []string{"id", "urls"}, keys(data))
				urls := data["urls"].(map[string]any)
				require.ElementsMatch(t, []string{"original", "medium", "small"}, keys(urls))
				for _, variant := range []string{"original", "medium", "small"} {
					u := jstr(t, urls, variant)
					require.True(t, strings.HasPrefix(u, baseURL+"/"), "url %s is not under the public base URL", u)
					require.Contains(t, u, id)
					// Images are public: no key is sent.
					got := e.doRaw(t, http.MethodGet, strings.TrimPrefix(u, baseURL), "", "", nil)
					require.Equal(t, http.StatusOK, got.Status, "GET %s: %s", u, got.Raw)
					require.Equal(t, tc.contentType, got.Header.Get("Content-Type"))
					require.Equal(t, "nosniff", got.Header.Get("X-Content-Type-Options"))
					require.NotEmpty(t, got.Raw)
					if tc.svg {
						require.Contains(t, got.Header.Get("Content-Security-Policy"), "sandbox")
						require.Contains(t, string(got.Raw), "<svg")
					}
					if tc.name == "png" && variant == "original" {
						require.True(t, bytes.Equal(pngData, got.Raw), "the original is served unchanged")
					}
					if !tc.svg {
						cfg, _, err := image.DecodeConfig(bytes.NewReader(got.Raw))
						require.NoError(t, err)
						box := map[string]int{"original": 600, "medium": media.MediumBox, "small": media.SmallBox}[variant]
						require.LessOrEqual(t, max(cfg.Width, cfg.Height), box, "%s fits its box", variant)
						if tc.name == "png" {
							require.Equal(t, box, cfg.Width, "a 600x300 image is scaled down to the box width")
						}
					}
				}
			})
		}
	}
	require.Equal(t, uploaded, countRows(t, e.d, "media_files", org))
	require.Equal(t, 6, uploaded)

	t.Run("svg scripts are stripped", func(t *testing.T) {
		evil := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">` +
			`<script>alert(2)</script><a href="javascript:alert(3)"><rect width="10" height="10"/></a></svg>`
		r := e.upload(t, "v3", key, []byte(evil))
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		got := e.doRaw(t, http.MethodGet, strings.TrimPrefix(jstr(t, r.Body, "data.urls.original"), baseURL), "", "", nil)
		require.Equal(t, http.StatusOK, got.Status)
		require.Contains(t, got.Header.Get("Content-Security-Policy"), "sandbox")
		for _, bad := range []string{"<script", "onload", "javascript:"} {
			require.NotContains(t, string(got.Raw), bad)
		}
	})
	t.Run("unknown image is 404", func(t *testing.T) {
		for _, p := range []string{"/media/00000000-0000-0000-0000-000000000000/original", "/media/nope/original"} {
			r := e.do(t, http.MethodGet, p, "", "")
			requireError(t, r, p, http.StatusNotFound, "NOT_FOUND")
		}
	})
	t.Run("unknown variant is 404", func(t *testing.T) {
		r := e.upload(t, "v3", key, pngData)
		require.Equal(t, http.StatusOK, r.Status)
		p := "/media/" + jstr(t, r.Body, "data.id") + "/huge"
		requireError(t, e.do(t, http.MethodGet, p, "", ""), p, http.StatusNotFound, "NOT_FOUND")
	})
}

func TestUploadImage_Rejects(t *testing.T) {
	// A small byte limit, so "too large" needs no big fixture; the accepted PNG stays under it.
	e := newEnv(t, media.Limits{MaxBytes: 4000})
	org := mustOrg(t, e.d, "Media Org")
	key, _ := mustKey(t, e.d, org, apikey.RoleManager)
	small := mustPNG(t, 8, 8, false)
	require.Less(t, len(small), 4000)
	slightlyOver := mustPNG(t, 64, 64, true)
	require.Greater(t, len(slightlyOver), 4000)
	farOver := mustPNG(t, 300, 300, true)
	require.Greater(t, len(farOver), 200_000)

	multipartOf := func(field string, data []byte) func(t *testing.T) (string, []byte) {
		return func(t *testing.T) (string, []byte) {
			body, ct := multipartBody(t, field, "x.png", data)
			b := new(bytes.Buffer)
			_, err := b.ReadFrom(body)
			require.NoError(t, err)
			return ct, b.Bytes()
		}
	}
	raw := func(ct, body string) func(t *testing.T) (string, []byte) {
		return func(t *testing.T) (string, []byte) { return ct, []byte(body) }
	}
	cases := []struct {
		name       string
		body       func(t *testing.T) (contentType string, body []byte)
		wantStatus int
		wantCode   string
		wantFields []string
	}{
		{"gif", multipartOf("image", mustGIF(t, 8, 8)), http.StatusBadRequest, "COM002", []string{"image"}},
		{"text", multipartOf("image", []byte("hello, this is not an image")), http.StatusBadRequest, "COM002", []string{"image"}},
		{"corrupt png", multipartOf("image", append(small[:20:20], "garbage"...)), http.StatusBadRequest, "COM002", []string{"image"}},
		{"svg with doctype", multipartOf("image", []byte(`<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>`)),
			http.StatusBadRequest, "COM006", []string{"image"}},
		{"empty file", multipartOf("image", nil), http.StatusBadRequest, "COM006", []string{"image"}},
		{"part under another name", multipartOf("file", small), http.StatusBadRequest, "COM006", []string{"image"}},
		{"no parts", raw("multipart/form-data; boundary=XYZ", "--XYZ--\r\n"), http.StatusBadRequest, "COM006", []string{"image"}},
		{"json body", raw("application/json", `{"image":"x"}`), http.StatusBadRequest, "COM002", []string{"image"}},
		{"no content type", raw("", "abc"), http.StatusBadRequest, "COM002", []string{"image"}},
		{"multipart without boundary", raw("multipart/form-data", "abc"), http.StatusBadRequest, "COM002", []string{"image"}},
		{"truncated multipart", raw("multipart/form-data; boundary=XYZ", "--XYZ\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nabc"),
			http.StatusBadRequest, "COM002", nil},
		{"slightly over the size limit", multipartOf("image", slightlyOver), http.StatusRequestEntityTooLarge, "COM006", []string{"image"}},
		{"far over the size limit", multipartOf("image", farOver), http.StatusRequestEntityTooLarge, "COM006", []string{"image"}},
		{"huge dimensions", multipartOf("image", mustPNG(t, 9000, 1, false)), http.StatusBadRequest, "COM006", []string{"image"}},
	}
	for _, tc := range cases {
		for _, v := range testVersions {
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				ct, body := tc.body(t)
				path := "/public/" + v + "/media-files/images"
				r := e.doRaw(t, http.MethodPost, path, key, ct, bytes.NewReader(body))
				requireError(t, r, path, tc.wantStatus, tc.wantCode, tc.wantFields...)
			})
		}
	}
	require.Equal(t, 0, countRows(t, e.d, "media_files", org), "no rejected upload leaves a row")

	t.Run("accepted under the limit", func(t *testing.T) {
		r := e.upload(t, "v3", key, small)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	})
}

// An image that needs more decode memory than the whole budget is refused with COM006, never queued.
func TestUploadImage_OverDecodeBudget(t *testing.T) {
	e := newEnv(t, media.Limits{DecodeBudget: 16 << 20})
	org := mustOrg(t, e.d, "Media Org")
	key, _ := mustKey(t, e.d, org, apikey.RoleManager)
	path := "/public/v3/media-files/images"
	r := e.upload(t, "v3", key, mustPNG(t, 1600, 1600, false))
	requireError(t, r, path, http.StatusBadRequest, "COM006", "image")
	require.Contains(t, string(r.Raw), "needs about 50 MiB to decode, the limit is 16 MiB")

	r = e.upload(t, "v3", key, mustPNG(t, 600, 300, false))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, 1, countRows(t, e.d, "media_files", org))
}
