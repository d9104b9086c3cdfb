package blob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/blob/s3test"
	"github.com/badged/badged/internal/errcode"
)

// stores returns one fresh store of each kind; every contract test runs against both.
func stores(t *testing.T) map[string]blob.Store {
	t.Helper()
	local, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	return map[string]blob.Store{"Local": local, "S3": mustS3(t, s3test.Start(t))}
}

func mustS3(tb testing.TB, srv *s3test.Server) *blob.S3 {
	tb.Helper()
	st, err := blob.NewS3(context.Background(), blob.S3Options{
		Endpoint:  srv.Endpoint,
		Region:    srv.Region,
		PathStyle: true,
		Bucket:    srv.Bucket,
		AccessKey: srv.AccessKey,
		SecretKey: srv.SecretKey,
	})
	require.NoError(tb, err)
	return st
}

func readAll(t *testing.T, st blob.Store, key string) ([]byte, blob.Info) {
	t.Helper()
	r, info, err := st.Get(context.Background(), key)
	require.NoError(t, err)
	defer r.Close()
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	return data, info
}

func TestStoreContract(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, st blob.Store)
	}{
		{"PutGetStatDelete", func(t *testing.T, st blob.Store) {
			ctx := context.Background()
			key := "media/org1/a1/original.png"
			require.NoError(t, st.Put(ctx, key, []byte("png-bytes"), "image/png"))

			data, info := readAll(t, st, key)
			require.Equal(t, "png-bytes", string(data))
			require.Equal(t, blob.Info{Key: key, Size: 9, ContentType: "image/png"}, info)

			info, err := st.Stat(ctx, key)
			require.NoError(t, err)
			require.Equal(t, blob.Info{Key: key, Size: 9, ContentType: "image/png"}, info)

			require.NoError(t, st.Delete(ctx, key))
			_, err = st.Stat(ctx, key)
			require.ErrorIs(t, err, blob.ErrNotFound)
			require.NoError(t, st.Delete(ctx, key), "deleting a free key is not an error")
		}},
		{"PutReplaces", func(t *testing.T, st blob.Store) {
			ctx := context.Background()
			key := "credentials/a2.json"
			require.NoError(t, st.Put(ctx, key, []byte(`{"v":1}`), "application/json"))
			require.NoError(t, st.Put(ctx, key, []byte(`{"v":22}`), "application/json"))
			data, info := readAll(t, st, key)
			require.Equal(t, `{"v":22}`, string(data))
			require.EqualValues(t, 8, info.Size)
		}},
		{"PutIfAbsentWritesOnce", func(t *testing.T, st blob.Store) {
			ctx := context.Background()
			key := "baked/org1/a3.png"
			wrote, err := st.PutIfAbsent(ctx, key, []byte("first"), "image/png")
			require.NoError(t, err)
			require.True(t, wrote)
			wrote, err = st.PutIfAbsent(ctx, key, []byte("second!"), "image/png")
			require.NoError(t, err)
			require.False(t, wrote)
			data, _ := readAll(t, st, key)
			require.Equal(t, "first", string(data), "the first content stays")
		}},
		{"NotFound", func(t *testing.T, st blob.Store) {
			ctx := context.Background()
			_, _, err := st.Get(ctx, "nothing/here.png")
			require.ErrorIs(t, err, blob.ErrNotFound)
			_, err = st.Stat(ctx, "nothing/here.png")
			require.ErrorIs(t, err, blob.ErrNotFound)
		}},
		{"BadKeysRejected", func(t *testing.T, st blob.Store) {
			ctx := context.Background()
			for _, key := range []string{"", "/abs.png", "a/../b.png", "a//b.png", "./a.png", `a\b.png`, "a/"} {
				err := st.Put(ctx, key, []byte("x"), "image/png")
				require.Equal(t, errcode.ArtifactUploadFailed, errcode.Of(err), "Put %q", key)
				_, err = st.PutIfAbsent(ctx, key, []byte("x"), "image/png")
				require.Equal(t, errcode.ArtifactUploadFailed, errcode.Of(err), "PutIfAbsent %q", key)
				_, _, err = st.Get(ctx, key)
				require.Error(t, err, "Get %q", key)
				require.NotErrorIs(t, err, blob.ErrNotFound, "Get %q", key)
				_, err = st.Stat(ctx, key)
				require.Error(t, err, "Stat %q", key)
				require.Error(t, st.Delete(ctx, key), "Delete %q", key)
			}
		}},
		{"ConcurrentPutIfAbsentWritesOnce", func(t *testing.T, st blob.Store) {
			for round := range 3 {
				key := fmt.Sprintf("pdf/org1/a4-%d.pdf", round)
				putRace(t, st, key)
			}
		}},
	}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) { tt.run(t, st) })
			}
		})
	}
}

// putRace runs PutIfAbsent on one key from 10 goroutines at once and checks that exactly one wrote.
func putRace(t *testing.T, st blob.Store, key string) {
	t.Helper()
	ctx := context.Background()
	var wrote atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	start := make(chan struct{})
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ok, err := st.PutIfAbsent(ctx, key, []byte(fmt.Sprintf("writer-%02d", i)), "application/pdf")
			if err != nil {
				errs <- err
			}
			if ok {
				wrote.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.EqualValues(t, 1, wrote.Load(), "exactly one writer wins on %s", key)
	data, _ := readAll(t, st, key)
	require.Len(t, data, len("writer-00"))
}

func TestS3DownIsUploadFailed(t *testing.T) {
	srv := s3test.Start(t)
	st, err := blob.NewS3(context.Background(), blob.S3Options{
		Endpoint: srv.Endpoint, Region: srv.Region, PathStyle: true, Bucket: srv.Bucket,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, MaxAttempts: 1,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, st.Put(ctx, "up/a.png", []byte("x"), "image/png"))

	srv.Stop()
	err = st.Put(ctx, "down/a.png", []byte("x"), "image/png")
	require.Equal(t, errcode.ArtifactUploadFailed, errcode.Of(err), "got %v", err)
	_, err = st.PutIfAbsent(ctx, "down/b.png", []byte("x"), "image/png")
	require.Equal(t, errcode.ArtifactUploadFailed, errcode.Of(err), "got %v", err)
	_, err = st.Stat(ctx, "up/a.png")
	require.Error(t, err)
	require.False(t, errors.Is(err, blob.ErrNotFound), "a down server is not a missing key")
}

func TestS3HeadBeforePutFallback(t *testing.T) {
	srv := s3test.Start(t)
	st, err := blob.NewS3(context.Background(), blob.S3Options{
		Endpoint: srv.Endpoint, Region: srv.Region, PathStyle: true, Bucket: srv.Bucket,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, HeadBeforePut: true,
	})
	require.NoError(t, err)
	ctx := context.Background()
	wrote, err := st.PutIfAbsent(ctx, "fallback/a.png", []byte("first"), "image/png")
	require.NoError(t, err)
	require.True(t, wrote)
	wrote, err = st.PutIfAbsent(ctx, "fallback/a.png", []byte("second"), "image/png")
	require.NoError(t, err)
	require.False(t, wrote)
	data, _ := readAll(t, st, "fallback/a.png")
	require.Equal(t, "first", string(data))
}

func TestS3MissingBucketIsNotNotFound(t *testing.T) {
	srv := s3test.Start(t)
	st, err := blob.NewS3(context.Background(), blob.S3Options{
		Endpoint: srv.Endpoint, Region: srv.Region, PathStyle: true, Bucket: "no-such-bucket",
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
	})
	require.NoError(t, err)
	_, _, err = st.Get(context.Background(), "a.png")
	require.Error(t, err)
	require.NotErrorIs(t, err, blob.ErrNotFound)
	err = st.Put(context.Background(), "a.png", []byte("x"), "image/png")
	require.Equal(t, errcode.ArtifactUploadFailed, errcode.Of(err))
}

// recordingProxy forwards to the S3 server and notes each request's method, If-None-Match header and response
// status. It keeps the Host header so that the SigV4 signature still matches.
func recordingProxy(t *testing.T, endpoint string) (string, func() []string) {
	t.Helper()
	target, err := url.Parse(endpoint)
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []string
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, fmt.Sprintf("%s %s %d",
				resp.Request.Method, resp.Request.Header.Get("If-None-Match"), resp.StatusCode))
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestS3PutIfAbsentUsesConditionalWrite(t *testing.T) {
	srv := s3test.Start(t)
	endpoint, seen := recordingProxy(t, srv.Endpoint)
	st, err := blob.NewS3(context.Background(), blob.S3Options{
		Endpoint: endpoint, Region: srv.Region, PathStyle: true, Bucket: srv.Bucket,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
	})
	require.NoError(t, err)
	ctx := context.Background()
	for range 2 {
		_, err := st.PutIfAbsent(ctx, "cond/a.png", []byte("x"), "image/png")
		require.NoError(t, err)
	}
	require.Equal(t, []string{"PUT * 200", "PUT * 412"}, seen(), "one conditional PUT each, no HeadObject")
}

func BenchmarkPutIfAbsent(b *testing.B) {
	local, err := blob.NewLocal(b.TempDir())
	require.NoError(b, err)
	for name, st := range map[string]blob.Store{"Local": local, "S3": mustS3(b, s3test.Start(b))} {
		b.Run(name, func(b *testing.B) {
			data := bytes.Repeat([]byte("x"), 32<<10)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if _, err := st.PutIfAbsent(ctx, fmt.Sprintf("bench/%d.png", i), data, "image/png"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
