"""The ioscore Django project: settings, URL root, Celery app, embedded database bootstrap."""

from .celery import app as celery_app

__all__ = ("celery_app",)
