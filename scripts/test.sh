#!/usr/bin/env bash
# Every test: the suite's C unit tests, then pytest (suite under mpirun, results library and CLI,
# service on real PostgreSQL with a real Celery worker, browser tests in Chromium).
# Extra arguments go to pytest, e.g. scripts/test.sh tests/webapp -k upload
set -euo pipefail
source "$(dirname "$0")/service-env.sh"
cd "$repo_root"
# Tests run with DEBUG off, like production; they do not need a secret key of their own.
export IOSCORE_INSECURE_DEV_KEY=1
export IOSCORE_TEST_ARTIFACTS=${IOSCORE_TEST_ARTIFACTS:-$repo_root/test-artifacts}
mkdir -p "$IOSCORE_TEST_ARTIFACTS"

# IOSCORE_MPI=openmpi (default) or mpich: the MPI the suite is built with and launched under
# (tests/mpi_launch.py owns the difference; each MPI has its own build directory)
read -ra suite_make_args <<<"$(.venv/bin/python -m tests.mpi_launch make-args)"
echo "== C unit tests (make -C suite check ${suite_make_args[*]})"
make -s -C suite check "${suite_make_args[@]}"
# Say which of the README's modes this run is in (the summary names the full-corpus tests).
without_secrets() { local rest=${1%%\?*}; rest=${rest#*://}; echo "${1%%://*}://${rest#*@}"; }
database="embedded PostgreSQL in $IOSCORE_VAR/pgdata (no DATABASE_URL)"
[[ -n "${DATABASE_URL:-}" ]] && database=$(without_secrets "$DATABASE_URL")
broker="kombu's SQLAlchemy broker on that database (no Redis)"
[[ -n "${CELERY_BROKER_URL:-}" ]] && broker=$(without_secrets "$CELERY_BROKER_URL")
echo "== pytest (database: $database; broker: $broker)"
# Without DATABASE_URL the tests start the embedded server; stop it afterwards unless it was
# already running (a demo's), so a test run leaves no server behind.
stop_embedded=false
[[ -z "${DATABASE_URL:-}" && ! -e "$IOSCORE_VAR/pgdata/postmaster.pid" ]] && stop_embedded=true
status=0
.venv/bin/pytest "$@" || status=$?
if $stop_embedded; then
  (cd webapp && ../.venv/bin/python -m ioscore_site.embedded_db stop) || true
fi
exit $status
