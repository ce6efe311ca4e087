"""Public pages and the read API; mounted at the site root (``path("", include(...))``)."""

from django.urls import path

from . import api, views

app_name = "rankings"

urlpatterns = [
    path("", views.home, name="home"),
    path("lists/", views.list_index, name="list-index"),
    path("lists/<str:release>/changelog/", views.changelog, name="changelog"),
    path("lists/<str:release>/<slug:list_type>/", views.ranked_list, name="ranked-list"),
    path("lists/<str:release>/<slug:list_type>.csv", views.export_csv, name="list-csv"),
    path("lists/<str:release>/<slug:list_type>.json", views.export_json, name="list-json"),
    path("results/<int:pk>/", views.submission_page, name="result"),
    path("results/<int:pk>/archive", views.submission_archive, name="result-archive"),
    path("results/io500/<int:io500_id>/", views.io500_result, name="result-io500"),
    path("compare/", views.compare, name="compare"),
    path("trends/", views.trends, name="trends"),
    # Read-only API (the OpenAPI document is /api/v1/schema/, mounted by the site urls).
    path("api/v1/lists/", api.ListsView.as_view(), name="api-lists"),
    path(
        "api/v1/lists/<str:release>/<slug:list_type>/",
        api.ListDetailView.as_view(),
        name="api-list",
    ),
    path(
        "api/v1/lists/<str:release>/<slug:list_type>/entries/",
        api.ListEntriesView.as_view(),
        name="api-list-entries",
    ),
    path("api/v1/results/", api.ResultsView.as_view(), name="api-results"),
    path("api/v1/results/<int:pk>/", api.ResultDetailView.as_view(), name="api-result"),
    path(
        "api/v1/results/<int:pk>/phases/", api.ResultPhasesView.as_view(), name="api-result-phases"
    ),
]
