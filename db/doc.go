// Package db is badged's Postgres: the schema (migrations/, applied in order by Migrate at start), the queries
// (queries/*.sql) and the code sqlc generates from them (*.sql.go, models.go, querier.go; `make generate`), and the
// connection pool (conn.go). The database's CHECK constraints are the vocabulary of states every other package
// uses.
//
// It imports only pgx, uuid and the standard library; every package that stores anything imports it, and it imports
// none of badged's.
package db
