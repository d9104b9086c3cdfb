-- Runs once, when the postgres volume is new (docker-entrypoint-initdb.d). One role per system, each owning its
-- databases, so neither badged nor Temporal runs as the superuser. Dev passwords: see docker-compose.yml.
CREATE ROLE badged LOGIN PASSWORD 'badged-dev-password';
CREATE DATABASE badged OWNER badged;

CREATE ROLE temporal LOGIN PASSWORD 'temporal-dev-password';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;

-- Temporal's visibility schema needs btree_gin; created here by the superuser so the schema job needs no more
-- than ownership of its databases.
\connect temporal_visibility
CREATE EXTENSION IF NOT EXISTS btree_gin;
