"""The Celery application: configuration comes from Django settings (CELERY_* names)."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioscore_site.settings")

app = Celery("ioscore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _private_temp_dir(**_kwargs: object) -> None:
    """Temp files of this worker (and its pool's `pymp-*`) below the media dir, swept when
    a later worker starts: a killed worker leaves nothing in /tmp (validation.worker_temp)."""
    from django.conf import settings

    from validation.worker_temp import use_private_temp_dir

    use_private_temp_dir(settings.MEDIA_ROOT)
