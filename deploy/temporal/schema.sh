#!/bin/sh
# Brings Temporal's two databases to the schema of this temporal-sql-tool's release, which must be the server's
# release (the tool embeds the server module's schema/postgresql/v12 files). Run by the compose stack before the
# server starts (service temporal-schema, admin-tools image; deploy/postgres/init created the databases) and by
# `make cluster` (deploy/cluster, the tool built from the go.temporal.io/server module in go.mod).
# Idempotent: setup-schema leaves a database that already has a version alone, update-schema applies only the
# missing versions, so it runs on every start and upgrades the schema with the server.
# Connection settings come from SQL_PLUGIN, SQL_HOST, SQL_PORT, SQL_USER and SQL_PASSWORD; DBNAME and
# VISIBILITY_DBNAME name the databases (temporal, temporal_visibility), as in deploy/temporal/config.yaml.
# SQL_CREATE_DATABASE=true creates missing databases first (needs a role allowed to create databases).
set -eu

for pair in "${DBNAME:-temporal}:postgresql/v12/temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:postgresql/v12/visibility"; do
	db=${pair%%:*}
	schema=${pair#*:}
	if [ "${SQL_CREATE_DATABASE:-false}" = true ]; then
		temporal-sql-tool --db "$db" create-database # an existing database is kept
	fi
	temporal-sql-tool --db "$db" setup-schema -v 0.0
	temporal-sql-tool --db "$db" update-schema --schema-name "$schema"
	echo "temporal-schema: $db is at the current $schema schema"
done
