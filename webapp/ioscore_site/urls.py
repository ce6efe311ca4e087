"""URL root: each app mounts its own urls module.

The rankings app owns the public pages, including "/" (namespace ``rankings``), and the
submission/status page (``submission-page``, the private twin of the result page); the
submissions app owns intake, review and the submission API.
"""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

from accounts.views import LoginView
from rankings.views import run_status_page
from submissions import urls as submission_urls

from .health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # The admin logs in through the one rate-limited login page.
    path("admin/login/", LoginView.as_view(), name="admin-login"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("api/v1/", include(submission_urls.api_urlpatterns)),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="openapi-schema"),
    path(
        "api/v1/docs/",
        SpectacularRedocView.as_view(
            url_name="openapi-schema", template_name="api_docs/redoc.html"
        ),
        name="api-docs",
    ),
    path("", include("acceptance.urls")),  # /acceptance/… pages and /api/v1/acceptance/…
    path("submissions/<int:pk>/", run_status_page, name="submission-page"),
    path("", include(submission_urls.page_urlpatterns)),
    path("", include("rankings.urls")),
]

# Styled error pages (portal.errors): 403 names the role, 404 what was not found.
handler403 = "portal.errors.permission_denied"
handler404 = "portal.errors.page_not_found"
handler500 = "portal.errors.server_error"
