#!/usr/bin/env bash
# `make demo`: a short non-compliant suite run, the service started, the IO500 corpus and the
# demo run loaded, the URL printed. `scripts/demo.sh stop` (make stop) stops what it started.
set -euo pipefail
source "$(dirname "$0")/service-env.sh"
cd "$repo_root"

port=${IOSCORE_PORT:-8000}
run_dir="$IOSCORE_VAR/run"
log_dir="$IOSCORE_VAR/log"
mkdir -p "$run_dir" "$log_dir"
manage() { (cd webapp && python manage.py "$@"); }

stop_pidfile() {
  local pidfile=$1
  [[ -f $pidfile ]] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -f "$pidfile"
}

stop_all() {
  stop_pidfile "$run_dir/web.pid"
  stop_pidfile "$run_dir/worker.pid"
  if [[ -z "${DATABASE_URL:-}" ]]; then
    (cd webapp && python -m ioscore_site.embedded_db stop)
  fi
}

if [[ "${1:-}" == "stop" ]]; then
  stop_all
  echo "stopped"
  exit 0
fi

started=$(date +%s)
# The demo's service runs like production: DEBUG off, a secret key of its own.
if [[ ! -s "$IOSCORE_VAR/secret_key" ]]; then
  python -c 'import secrets; print(secrets.token_urlsafe(50))' > "$IOSCORE_VAR/secret_key"
  chmod 600 "$IOSCORE_VAR/secret_key"
fi
export SECRET_KEY=${SECRET_KEY:-$(cat "$IOSCORE_VAR/secret_key")}
export DEBUG=0

echo "== 1/5 a short, NON-COMPLIANT suite run (2 ranks, 3 s stonewall) on ./demo-data"
mkdir -p demo-data demo-results
before=$(ls demo-results)
job_cmd=(mpirun --oversubscribe -np 2 suite/build/ioscore-suite examples/demo.ini)
job_out=$(mktemp)
"${job_cmd[@]}" 2>&1 | tee "$job_out"
demo_run=$(comm -13 <(echo "$before") <(ls demo-results) | tail -n 1)
[[ -n "$demo_run" ]] || { echo "the suite wrote no result directory" >&2; exit 1; }
demo_run="demo-results/$demo_run"
# What a site admin uploads beside the results: the launch script and the job's output.
printf '#!/bin/bash\n# launched by make demo from %s\n%s\n' "$repo_root" "${job_cmd[*]}" > "$demo_run/job.sh"
mv "$job_out" "$demo_run/job.out"
# The system description: what this node detects, completed by the demo's hand-written base.
ioscore sysinfo --datadir demo-data --base examples/demo-system.json \
  > "$IOSCORE_VAR/demo-system.json" 2> "$log_dir/demo-sysinfo.log"
echo "   results in $demo_run"

echo "== 2/5 database (migrations)"
manage migrate --noinput >/dev/null

echo "== 3/5 the real IO500 results from $IOSCORE_CORPUS_DIR"
manage import_io500 "$IOSCORE_CORPUS_DIR"
manage build_lists
# The release submissions attach to: open for 30 more days, named after its release month.
release_date=$(date -u -d "+45 days" +%F)
release_month=$(date -u -d "$release_date" +%-m)
release_yy=$(date -u -d "$release_date" +%y)
if (( release_month <= 7 )); then next_release="ISC$release_yy"; else next_release="SC$release_yy"; fi
manage add_release "$next_release" --release-date "$release_date" --deadline "$(date -u -d "+30 days" +%F)"

echo "== 4/5 Celery worker and web server on 127.0.0.1:$port"
stop_pidfile "$run_dir/web.pid"
stop_pidfile "$run_dir/worker.pid"
# --beat: the sweep that re-queues a validation whose worker was killed (validation.tasks)
(cd webapp && celery -A ioscore_site worker --beat --schedule "$run_dir/celerybeat-schedule" \
  --concurrency=1 --loglevel=INFO --detach \
  --pidfile="$run_dir/worker.pid" --logfile="$log_dir/worker.log")
export ALLOWED_HOSTS=${ALLOWED_HOSTS:-localhost,127.0.0.1}
gunicorn ioscore_site.wsgi --chdir webapp --bind "127.0.0.1:$port" --workers 2 --daemon \
  --pid "$run_dir/web.pid" --access-logfile "$log_dir/web-access.log" --error-logfile "$log_dir/web.log"
for _ in $(seq 60); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { echo "web server did not start; see $log_dir/web.log" >&2; exit 1; }

echo "== 5/5 upload the demo run through the API, as a site admin would"
token=$(manage demo_account --username demo --site DEMO --password-file "$IOSCORE_VAR/demo_password")
# The demo run is invalid by design (3 s stonewall): exit code 1 (invalid) is the expected
# outcome; 2 (unreadable, refused, network) is a failure.
set +e
ioscore upload "$demo_run" --server "http://127.0.0.1:$port" --token "$token" --force \
  --system "$IOSCORE_VAR/demo-system.json" --questionnaire examples/demo-questionnaire.json \
  2>&1 | tee "$log_dir/demo-upload.log"
upload_status=${PIPESTATUS[0]}
set -e
if (( upload_status > 1 )); then
  echo "uploading the demo run failed (exit $upload_status); see $log_dir/demo-upload.log" >&2
  exit 1
fi

elapsed=$(( $(date +%s) - started ))
cat <<MSG

ioscore is running (demo took ${elapsed}s after set-up).
  Open:            http://127.0.0.1:$port/
  Your demo run:   $(grep -Eo "http://[^ ]+/submissions/[0-9]+/?" "$log_dir/demo-upload.log" | tail -n 1)
                   (log in as demo / $(cat "$IOSCORE_VAR/demo_password") to see it: it is INVALID by design)
  Logs:            $log_dir
  Stop:            make stop
MSG
