package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3Options configures an S3 store.
type S3Options struct {
	// Endpoint is the base URL of an S3-compatible server, e.g. "http://127.0.0.1:7070"; empty means AWS S3.
	Endpoint string
	// Region is the signing region; "us-east-1" when empty.
	Region string
	// PathStyle addresses buckets as "<endpoint>/<bucket>/<key>" instead of "<bucket>.<endpoint>/<key>"; most
	// self-hosted servers need it.
	PathStyle bool
	Bucket    string
	// AccessKey and SecretKey are static credentials; when both are empty the SDK's default chain (environment,
	// shared files, instance role) is used.
	AccessKey string
	SecretKey string
	// HeadBeforePut makes PutIfAbsent check with HeadObject and then write, for servers that do not honour
	// "If-None-Match: *" on PutObject. Two writers racing on the same key can then both write; the keys are
	// derived from ids, so both write the same bytes. Servers that answer 501 to the conditional write get this
	// fallback without the option.
	HeadBeforePut bool
	// MaxAttempts bounds the SDK's retries of one call; the SDK default (3) when zero.
	MaxAttempts int
}

// S3 is a Store in an S3 bucket.
type S3 struct {
	client        *s3.Client
	bucket        string
	headBeforePut bool
}

var _ Store = (*S3)(nil)

// NewS3 returns a store for the bucket. It does not contact the server.
func NewS3(ctx context.Context, o S3Options) (*S3, error) {
	if o.Bucket == "" {
		return nil, errors.New("s3 store: bucket is required")
	}
	region := o.Region
	if region == "" {
		region = "us-east-1"
	}
	loadOpts := []func(*config.LoadOptions) error{config.WithRegion(region)}
	if o.AccessKey != "" || o.SecretKey != "" {
		loadOpts = append(loadOpts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(o.AccessKey, o.SecretKey, "")))
	}
	if o.MaxAttempts > 0 {
		loadOpts = append(loadOpts, config.WithRetryMaxAttempts(o.MaxAttempts))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("load aws config: %w", err)
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = o.PathStyle
	})
	return &S3{client: client, bucket: o.Bucket, headBeforePut: o.HeadBeforePut}, nil
}

// Client returns the SDK client, for callers that need an operation the Store interface lacks (presigning).
func (s *S3) Client() *s3.Client { return s.client }

// Put implements Store.
func (s *S3) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := CheckKey(key); err != nil {
		return uploadFailed(key, err)
	}
	if err := s.put(ctx, key, data, contentType, false); err != nil {
		return uploadFailed(key, err)
	}
	return nil
}

// PutIfAbsent implements Store with a conditional write ("If-None-Match: *"): the server refuses the write with
// 412 Precondition Failed when the key is taken, which is reported as (false, nil). Under HeadBeforePut, or when
// the server answers 501 Not Implemented to the condition, it falls back to HeadObject then PutObject, which is
// not atomic (see S3Options.HeadBeforePut).
func (s *S3) PutIfAbsent(ctx context.Context, key string, data []byte, contentType string) (bool, error) {
	if err := CheckKey(key); err != nil {
		return false, uploadFailed(key, err)
	}
	if !s.headBeforePut {
		// AWS answers 409 ConditionalRequestConflict when another conditional write on the key is in flight and
		// asks the client to retry; the retry then sees the winner's object and gets 412.
		for attempt := 1; ; attempt++ {
			err := s.put(ctx, key, data, contentType, true)
			switch {
			case err == nil:
				return true, nil
			case isPreconditionFailed(err):
				return false, nil
			case httpStatus(err) == http.StatusConflict && attempt < 5:
				continue
			case httpStatus(err) != http.StatusNotImplemented:
				return false, uploadFailed(key, err)
			}
			break
		}
	}
	_, err := s.Stat(ctx, key)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, ErrNotFound):
		return false, uploadFailed(key, err)
	}
	if err := s.put(ctx, key, data, contentType, false); err != nil {
		return false, uploadFailed(key, err)
	}
	return true, nil
}

func (s *S3) put(ctx context.Context, key string, data []byte, contentType string, ifAbsent bool) error {
	if contentType == "" {
		contentType = contentTypeOf(key)
	}
	in := &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
		ContentType:   aws.String(contentType),
	}
	if ifAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	if _, err := s.client.PutObject(ctx, in); err != nil {
		return fmt.Errorf("put object: %w", err)
	}
	return nil
}

// Get implements Store.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	if err := CheckKey(key); err != nil {
		return nil, Info{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if isNotFound(err) {
		return nil, Info{}, ErrNotFound
	}
	if err != nil {
		return nil, Info{}, fmt.Errorf("get blob %s: %w", key, err)
	}
	return out.Body, Info{Key: key, Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)},
		nil
}

// Stat implements Store.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if isNotFound(err) {
		return Info{}, ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("stat blob %s: %w", key, err)
	}
	return Info{Key: key, Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)}, nil
}

// Delete implements Store. S3 answers a delete of a missing key with success, as the interface wants.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// isNotFound reports a missing key: GetObject says NoSuchKey, HeadObject has no body and so only NotFound or 404.
func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nf) {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		case "NoSuchBucket":
			return false // a missing bucket is a configuration error, not a free key
		}
	}
	return httpStatus(err) == http.StatusNotFound
}

func isPreconditionFailed(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed" {
		return true
	}
	return httpStatus(err) == http.StatusPreconditionFailed
}

// httpStatus returns the HTTP status of a failed S3 call, or 0 when no response came back.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}
