"""WSGI entry point (gunicorn ioscore_site.wsgi)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioscore_site.settings")

from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()
