// Package devserver runs a complete Temporal server (frontend, history,
// matching and worker services) inside the current process, optionally with
// the Temporal Web UI.
//
// It backs `badged dev` and the integration tests: nothing is downloaded at
// run or test time. Persistence is SQLite (pure Go) in a file under
// Options.Dir, in memory when Dir is empty, or the local Postgres when
// Options.PostgresURL is set. The namespace and the custom search attributes
// are registered at every start, idempotently, so a restart on the same Dir
// keeps workflows and visibility.
//
// It imports only temporal/setup. Production builds leave it out (cmd/badged/build_test.go): only `badged dev` and
// tests import it.
package devserver
