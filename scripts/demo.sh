#!/usr/bin/env bash
# `make demo`: a short non-compliant suite run, the service started, IO500 results and the
# demo run loaded, the URL printed. `scripts/demo.sh stop` (make stop) stops what it started.
# IOSCORE_PORT (default 8000) and IOSCORE_VAR (default ./var) make a second instance: it gets
# its own embedded database, Celery queue and broker key prefix (settings: IOSCORE_INSTANCE).
set -euo pipefail
# The whole script is one block, read before it runs: editing or pulling it meanwhile does
# not change a demo that is starting.
{
source "$(dirname "$0")/service-env.sh"
cd "$repo_root"

port=${IOSCORE_PORT:-8000}
run_dir="$IOSCORE_VAR/run"
log_dir="$IOSCORE_VAR/log"
mkdir -p "$run_dir" "$log_dir"
manage() { (cd webapp && python manage.py "$@"); }

# What a log says since byte offset $2: its distinct error lines first (a retrying worker
# repeats them between "Trying again" lines), then its last lines.
show_log() {
  local log=$1 from=${2:-0} new
  new=$(tail -c +"$((from + 1))" "$log" 2>/dev/null | grep -v '^[[:space:]]*$' || true)
  echo "---- $log: errors ----" >&2
  grep -E 'ERROR|CRITICAL|FATAL|PANIC|Error|Traceback' <<<"$new" |
    sed -E 's/^\[[0-9-]+ [0-9:,.]+: /[/' | awk '!seen[$0]++' | head -n 5 >&2 || true
  echo "---- $log: last lines ----" >&2
  tail -n 15 <<<"$new" >&2
  echo "----" >&2
}
log_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# Who listens on a TCP port, e.g. `python3 (pid 1234)`; empty when nobody does.
port_owner() {
  local listeners
  listeners=$(ss -Hltnp "sport = :$1" 2>/dev/null || true)
  if [[ -z "$listeners" ]]; then
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && echo "an unknown process"
    return 0
  fi
  grep -o '(("[^"]*",pid=[0-9]*' <<<"$listeners" | head -n 1 |
    sed -E 's/\(\("([^"]*)",pid=([0-9]*)/\1 (pid \2)/' || true
  grep -q 'users:' <<<"$listeners" || echo "another user's process"
}

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

stop_services() {
  stop_pidfile "$run_dir/web.pid"
  stop_pidfile "$run_dir/beat.pid"
  stop_pidfile "$run_dir/worker.pid"
}

stop_all() {
  stop_services
  if [[ -z "${DATABASE_URL:-}" ]]; then
    (cd webapp && python -m ioscore_site.embedded_db stop)
  fi
}

# Where the IO500 results come from: the user's archive, the data folder beside the
# repository, or the small real sample carried in the repository.
choose_archive() {
  archive=${IOSCORE_ARCHIVE:-${IOSCORE_CORPUS_DIR:-}}
  if [[ -n "$archive" ]]; then
    archive_why="IOSCORE_ARCHIVE"
  elif [[ -d "$repo_root/../shared/data" ]]; then
    archive=$(cd "$repo_root/../shared/data" && pwd)
    archive_why="the data folder beside the repository"
  else
    archive="$repo_root/examples/io500-sample"
    archive_why="the small sample in the repository"
  fi
  [[ -d "$archive" ]] || { echo "IO500 data folder $archive does not exist" >&2; exit 1; }
}

# Steps 2 and 3: the database (embedded unless DATABASE_URL), migrations, the IO500 results,
# the ranked lists, and the open release uploads attach to. Alone: `scripts/demo.sh data`.
load_data() {
  echo "== 2/5 database (migrations)"
  if [[ -z "${DATABASE_URL:-}" ]]; then
    pg_log="$IOSCORE_VAR/pgdata/log"
    pg_from=$(log_size "$pg_log")
    if ! (cd webapp && python -m ioscore_site.embedded_db url >/dev/null); then
      echo "the embedded PostgreSQL server did not come up" >&2
      show_log "$pg_log" "$pg_from"
      exit 1
    fi
  fi
  manage migrate --noinput >/dev/null

  echo "== 3/5 the real IO500 results from $archive ($archive_why)"
  manage import_io500 "$archive"
  manage build_lists
  # The release submissions attach to: open for 30 more days, named after its release month.
  release_date=$(date -u -d "+45 days" +%F)
  release_month=$(date -u -d "$release_date" +%-m)
  release_yy=$(date -u -d "$release_date" +%y)
  if (( release_month <= 7 )); then next_release="ISC$release_yy"; else next_release="SC$release_yy"; fi
  manage add_release "$next_release" --release-date "$release_date" --deadline "$(date -u -d "+30 days" +%F)"
}

if [[ "${1:-}" == "stop" ]]; then
  stop_all
  echo "stopped"
  exit 0
fi

# The demo's service runs like production: DEBUG off, a secret key of its own.
if [[ ! -s "$IOSCORE_VAR/secret_key" ]]; then
  python -c 'import secrets; print(secrets.token_urlsafe(50))' > "$IOSCORE_VAR/secret_key"
  chmod 600 "$IOSCORE_VAR/secret_key"
fi
export SECRET_KEY=${SECRET_KEY:-$(cat "$IOSCORE_VAR/secret_key")}
export DEBUG=0
# Plain HTTP on loopback: no HTTPS redirect, cookies without the Secure flag.
export IOSCORE_HTTPS=${IOSCORE_HTTPS:-0}

if [[ "${1:-}" == "data" ]]; then
  choose_archive
  load_data
  exit 0
fi

started=$(date +%s)
# A port in use stops the demo here, before any work: our own earlier demo is stopped first.
stop_services
owner=$(port_owner "$port")
if [[ -n "$owner" ]]; then
  free=$((port + 1))
  while [[ -n "$(port_owner "$free")" ]] && (( free < port + 100 )); do free=$((free + 1)); done
  echo "port $port is in use (by $owner); set IOSCORE_PORT to a free port, e.g." >&2
  echo "  IOSCORE_PORT=$free IOSCORE_VAR=$repo_root/var-$free make demo" >&2
  exit 1
fi
choose_archive
export IOSCORE_SITE_URL=${IOSCORE_SITE_URL:-http://127.0.0.1:$port}

# The run's data and results live in this instance's state dir, so two demos never mix runs.
demo_dir="$IOSCORE_VAR/demo"
echo "== 1/5 a short, NON-COMPLIANT suite run (2 ranks, 3 s stonewall) in $demo_dir"
mkdir -p "$demo_dir/demo-data" "$demo_dir/demo-results"
before=$(ls "$demo_dir/demo-results")
# The launcher of the MPI the suite was linked with (Open MPI's mpirun, MPICH's mpiexec, ...).
suite_bin="$repo_root/suite/build/ioscore-suite"
read -ra launch <<<"$(python -c 'import shlex, sys
from ioscore.launchers import choose
print(shlex.join(choose(None, "local", sys.argv[1]).argv(2, local=True)))' "$suite_bin")"
job_cmd=("${launch[@]}" "$suite_bin" "$repo_root/examples/demo.ini")
job_out=$(mktemp)
# The INI's ./demo-data and ./demo-results are relative to where mpirun starts. No file of
# the demo run may grow past 1 GiB (ulimit -f counts KiB), whatever the INI says.
(cd "$demo_dir" && ulimit -f $((1 << 20)) && "${job_cmd[@]}") 2>&1 | tee "$job_out"
demo_run=$(comm -13 <(echo "$before") <(ls "$demo_dir/demo-results") | tail -n 1)
[[ -n "$demo_run" ]] || { echo "the suite wrote no result directory" >&2; exit 1; }
demo_run="$demo_dir/demo-results/$demo_run"
# What a site admin uploads beside the results: the launch script and the job's output.
printf '#!/bin/bash\n# launched by make demo in %s\n%s\n' "$demo_dir" "${job_cmd[*]}" > "$demo_run/job.sh"
mv "$job_out" "$demo_run/job.out"
# The system description: what this node detects, completed by the demo's hand-written base.
ioscore sysinfo --datadir "$demo_dir/demo-data" --base examples/demo-system.json \
  > "$IOSCORE_VAR/demo-system.json" 2> "$log_dir/demo-sysinfo.log"
echo "   results in $demo_run"

load_data

echo "== 4/5 Celery worker, Celery beat (the lost-validation sweep) and web server on 127.0.0.1:$port"
# Each started process must say it is up; if it does not, its own log lines say why.
wait_for_log() {  # LOG FROM PIDFILE WHAT PATTERN
  local log=$1 from=$2 pidfile=$3 what=$4 pattern=$5 pid
  for _ in $(seq 120); do
    tail -c +"$((from + 1))" "$log" 2>/dev/null | grep -q -- "$pattern" && return 0
    # A pidfile read empty, or gone, is not a dead process: it is created before its pid is
    # written, and Celery's --detach creates it once to test it and removes it before the
    # daemon writes its own. So a dead pid counts only while the file still names it.
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      sleep 1
      [[ "$(cat "$pidfile" 2>/dev/null || true)" == "$pid" ]] && break
    fi
    sleep 0.5
  done
  echo "the $what did not come up" >&2
  show_log "$log" "$from"
  stop_services
  exit 1
}
worker_from=$(log_size "$log_dir/worker.log")
(cd webapp && celery -A ioscore_site worker --loglevel=INFO --detach \
  --pidfile="$run_dir/worker.pid" --logfile="$log_dir/worker.log")
wait_for_log "$log_dir/worker.log" "$worker_from" "$run_dir/worker.pid" "Celery worker" " ready."
beat_from=$(log_size "$log_dir/beat.log")
(cd webapp && celery -A ioscore_site beat --loglevel=INFO --detach \
  --pidfile="$run_dir/beat.pid" --logfile="$log_dir/beat.log")
wait_for_log "$log_dir/beat.log" "$beat_from" "$run_dir/beat.pid" "Celery beat" "beat: Starting"
export ALLOWED_HOSTS=${ALLOWED_HOSTS:-localhost,127.0.0.1}
web_from=$(log_size "$log_dir/web.log")
# Threaded workers: a slow client uploading holds one thread, not a whole worker.
gunicorn ioscore_site.wsgi --chdir webapp --bind "127.0.0.1:$port" --workers 2 \
  --worker-class gthread --threads 4 --daemon \
  --pid "$run_dir/web.pid" --access-logfile "$log_dir/web-access.log" --error-logfile "$log_dir/web.log"
wait_for_log "$log_dir/web.log" "$web_from" "$run_dir/web.pid" "web server" "Booting worker"
for _ in $(seq 60); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
if ! curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null; then
  echo "the web server does not answer on 127.0.0.1:$port/healthz" >&2
  show_log "$log_dir/web.log" "$web_from"
  exit 1
fi

echo "== 5/5 upload the demo run through the API, as a site admin would"
token=$(manage demo_account --username demo --site DEMO --password-file "$IOSCORE_VAR/demo_password")
# The committee and the site administrator, to try the review queue and the release pages.
manage create_account reviewer --role reviewer --password-file "$IOSCORE_VAR/reviewer_password"
manage create_account admin --role admin --password-file "$IOSCORE_VAR/admin_password"
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
stop_command="make stop"
if [[ "$IOSCORE_VAR" != "$repo_root/var" ]]; then stop_command="IOSCORE_VAR=$IOSCORE_VAR make stop"; fi
cat <<MSG

ioscore is running (demo took ${elapsed}s after set-up).
  Open:            http://127.0.0.1:$port/
  Your demo run:   $(grep -Eo "http://[^ ]+/submissions/[0-9]+/?" "$log_dir/demo-upload.log" | tail -n 1)
                   (log in as demo / $(cat "$IOSCORE_VAR/demo_password") to see it: it is INVALID by design)
  Reviewer, admin: reviewer / $(cat "$IOSCORE_VAR/reviewer_password"), admin / $(cat "$IOSCORE_VAR/admin_password")
  IO500 results:   from $archive ($archive_why)
  Full archive:    git clone https://github.com/IO500/submission-data, then
                   IOSCORE_ARCHIVE=/path/to/submission-data make demo
  Logs:            $log_dir
  Stop:            $stop_command
MSG
exit
}
