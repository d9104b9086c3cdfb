#!/bin/sh
# Validates docker-compose.yml with `docker compose config` where the compose plugin is installed (CI runners with
# Docker). Without it, this says so and succeeds: `go test ./deploy/` validates the file with compose-go, the
# library `docker compose config` is built on, and checks it against the code.
set -eu
cd "$(dirname "$0")/.."

if docker compose version >/dev/null 2>&1; then
	docker compose -f docker-compose.yml config -q
	echo "check-compose: docker compose config: ok"
else
	echo "check-compose: no docker compose here, skipped (go test ./deploy/ covers the file)"
fi
