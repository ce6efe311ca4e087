# Sourced by scripts/demo.sh and scripts/test.sh: how the service finds its database and broker.
# DATABASE_URL / CELERY_BROKER_URL from the caller win. Without DATABASE_URL the settings start
# an embedded PostgreSQL server (webapp/ioscore_site/embedded_db.py). Without CELERY_BROKER_URL
# we use the local Redis when one answers, else the settings fall back to kombu's SQLAlchemy
# transport on the same PostgreSQL database. Instances sharing the Redis database never share
# tasks: queue names and key prefixes carry the instance name (settings: IOSCORE_INSTANCE).
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export IOSCORE_VAR=${IOSCORE_VAR:-$repo_root/var}
if [[ -z "${CELERY_BROKER_URL:-}" ]] && (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  export CELERY_BROKER_URL=redis://127.0.0.1:6379/0
fi
# Open MPI keeps its session directory in /tmp; on a nearly full root disk mpirun cannot start,
# so local runs put it in memory when /dev/shm exists.
if [[ -d /dev/shm && -w /dev/shm ]]; then
  export OMPI_MCA_orte_tmpdir_base=${OMPI_MCA_orte_tmpdir_base:-/dev/shm}
fi
# Open MPI refuses to run as root unless told; our runs are local and deliberate.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export PATH="$repo_root/.venv/bin:$PATH"
