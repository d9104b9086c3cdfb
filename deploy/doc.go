// Package deploy holds the production-like stack of docker-compose.yml (Prometheus, Grafana, Temporal and
// Postgres setup files) and its tests: the compose file loads as `docker compose config` loads it, every service
// the stack needs is there and starts in order, Prometheus scrapes ports the services listen on, the Grafana
// dashboard uses only metrics internal/metrics registers and shows all of them, and the Temporal setup job
// registers exactly the search attributes the workflows set. The package has no code of its own.
//
// Its tests import only what they check against: db (the migrations), internal/credential, internal/metrics (the
// registry) and workflows (the search attributes).
package deploy
