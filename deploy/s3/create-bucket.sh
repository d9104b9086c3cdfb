#!/bin/sh
# One-shot (service s3-init): creates the bucket badged stores images and credentials in, once the S3 store answers.
# An existing bucket is kept, so the job runs on every `docker compose up`.
set -eu

# The store is addressed by path (http://s3:7070/<bucket>), not by a virtual host name the network cannot resolve.
aws configure set default.s3.addressing_style path

i=0
while [ "$i" -lt 60 ]; do
	if aws --endpoint-url "$S3_ENDPOINT" s3api head-bucket --bucket "$S3_BUCKET" >/dev/null 2>&1; then
		echo "s3-init: bucket $S3_BUCKET exists"
		exit 0
	fi
	if aws --endpoint-url "$S3_ENDPOINT" s3api create-bucket --bucket "$S3_BUCKET" >/dev/null 2>&1; then
		echo "s3-init: bucket $S3_BUCKET created"
		exit 0
	fi
	i=$((i + 1))
	sleep 1
done
echo "s3-init: the S3 store at $S3_ENDPOINT did not answer" >&2
exit 1
