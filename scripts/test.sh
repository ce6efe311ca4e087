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

echo "== C unit tests (make -C suite check)"
make -s -C suite check
echo "== pytest"
exec .venv/bin/pytest "$@"
