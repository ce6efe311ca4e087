"""Acceptance pages under /acceptance/ and its API under /api/v1/acceptance/ (one include)."""

from django.urls import path

from . import api, views

app_name = "acceptance"

urlpatterns = [
    path("acceptance/", views.index, name="index"),
    path("acceptance/upload/", views.upload, name="upload"),
    path("acceptance/sites/<int:pk>/", views.site_history, name="site"),
    path("acceptance/sites/<int:pk>/systems/<int:system>/", views.site_history, name="system"),
    path("acceptance/sites/<int:pk>/history.csv", views.history_csv, name="site-csv"),
    path("acceptance/sites/<int:pk>/alert-rules/", views.alert_rule, name="alert-rule"),
    path(
        "acceptance/sites/<int:pk>/systems/<int:system>/history.csv",
        views.history_csv,
        name="system-csv",
    ),
    path("acceptance/runs/<int:pk>/", views.run_page, name="run"),
    path("acceptance/runs/<int:pk>/delete/", views.run_delete, name="delete"),
    path("acceptance/runs/<int:pk>/report/", views.report, name="report"),
    path("acceptance/runs/<int:pk>/report/content/", views.report_content, name="report-content"),
    path("acceptance/runs/<int:pk>/archive/", views.archive, name="archive"),
    path("api/v1/acceptance/runs/", api.RunListCreate.as_view(), name="api-runs"),
    path("api/v1/acceptance/runs/<int:pk>/", api.RunDetail.as_view(), name="api-run"),
    path(
        "api/v1/acceptance/sites/<int:pk>/history/",
        api.SiteHistory.as_view(),
        name="api-site-history",
    ),
]
