"""Mounted at /manage/ by the submissions app's page urls."""

from django.urls import path

from . import lists, releases, roles, views

urlpatterns = [
    path("", views.index, name="manage-index"),
    path("releases/", releases.releases, name="manage-releases"),
    path("releases/<int:pk>/<str:action>/", releases.release_action, name="manage-release-action"),
    path("pins/", lists.pins, name="manage-pins"),
    path("pins/<int:pk>/remove/", lists.unpin, name="manage-unpin"),
    path("lists/", lists.lists, name="manage-lists"),
    path("lists/<int:pk>/publish/", lists.publish, name="manage-publish-list"),
    path("corrections/", lists.corrections, name="manage-corrections"),
    path("roles/", roles.roles, name="manage-roles"),
]
