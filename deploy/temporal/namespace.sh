#!/bin/sh
# One-shot after the Temporal server starts (service temporal-setup): creates badged's namespace and registers the
# custom search attributes every issuance workflow carries. The list must equal workflows.SearchAttributeTypes():
# deploy/compose_test.go compares the two. Every step is idempotent (an existing namespace is kept, an existing
# search attribute is skipped by the server), so the job runs on every `docker compose up`.
set -eu

addr=${TEMPORAL_ADDRESS:-temporal:7233}
ns=${TEMPORAL_NAMESPACE:-default}

# retry runs a command until it succeeds, for up to 3 minutes: the frontend needs a few seconds to open, and a new
# namespace a few more to be seen by every service.
retry() {
	n=0
	until "$@"; do
		n=$((n + 1))
		if [ "$n" -ge 90 ]; then
			echo "temporal-setup: giving up on: $*" >&2
			return 1
		fi
		sleep 2
	done
}

ensure_namespace() {
	temporal operator namespace describe --address "$addr" --namespace "$ns" >/dev/null 2>&1 ||
		temporal operator namespace create --address "$addr" --namespace "$ns"
}

search_attribute() {
	retry temporal operator search-attribute create --address "$addr" --namespace "$ns" --name "$1" --type "$2"
}

retry temporal operator cluster health --address "$addr"
retry ensure_namespace

search_attribute IssuanceId Keyword
search_attribute OrgId Keyword
search_attribute BadgeId Keyword
search_attribute ApiVersion Keyword
search_attribute RecipientCount Int
# What operators search by in the UI (docs/operators.md#the-temporal-ui), kept current by the workflows.
search_attribute Stage Keyword
search_attribute StageSince Datetime
search_attribute IssuedCount Int
search_attribute FailedCount Int
search_attribute FailedCodes KeywordList
search_attribute Mode Keyword

temporal operator search-attribute list --address "$addr" --namespace "$ns"
echo "temporal-setup: namespace $ns ready"
