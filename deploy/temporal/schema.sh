#!/bin/sh
# One-shot before the Temporal server starts (service temporal-schema): brings Temporal's two databases, created by
# deploy/postgres/init, to the schema of this admin-tools release, which matches the server image's release.
# Idempotent: setup-schema leaves a database that already has a version alone, update-schema applies only the
# missing versions, so the job runs on every `docker compose up` and upgrades the schema with the images.
# Connection settings come from SQL_PLUGIN, SQL_HOST, SQL_PORT, SQL_USER and SQL_PASSWORD.
set -eu

for pair in temporal:postgresql/v12/temporal temporal_visibility:postgresql/v12/visibility; do
	db=${pair%%:*}
	schema=${pair#*:}
	temporal-sql-tool --db "$db" setup-schema -v 0.0
	temporal-sql-tool --db "$db" update-schema --schema-name "$schema"
	echo "temporal-schema: $db is at the current $schema schema"
done
