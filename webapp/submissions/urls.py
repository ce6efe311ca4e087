from django.urls import URLPattern, URLResolver, include, path

from . import api, review_views, upload_views, views

api_urlpatterns = [
    path("submissions/", api.SubmissionListCreate.as_view(), name="api-submissions"),
    path("submissions/<int:pk>/", api.SubmissionDetail.as_view(), name="api-submission"),
    path(
        "submissions/<int:pk>/status/", api.SubmissionStatus.as_view(), name="api-submission-status"
    ),
    path(
        "submissions/<int:pk>/withdraw/",
        api.SubmissionWithdraw.as_view(),
        name="api-submission-withdraw",
    ),
    path(
        "submissions/<int:pk>/review/", api.SubmissionReview.as_view(), name="api-submission-review"
    ),
    path("review/queue/", api.ReviewQueue.as_view(), name="api-review-queue"),
    path("releases/", api.ReleaseList.as_view(), name="api-releases"),
    path("releases/<int:pk>/", api.ReleaseDetail.as_view(), name="api-release"),
]

page_urlpatterns: list[URLPattern | URLResolver] = [
    path("submissions/new/", upload_views.upload, name="submission-upload"),
    path("submissions/mine/", views.mine, name="submission-mine"),
    path("submissions/<int:pk>/archive/", views.archive, name="submission-archive"),
    path("submissions/<int:pk>/edit/", upload_views.edit, name="submission-edit"),
    path("submissions/<int:pk>/withdraw/", views.withdraw, name="submission-withdraw"),
    path("submissions/<int:pk>/review/", review_views.review, name="submission-review"),
    path("review/", review_views.queue, name="review-queue"),
    path("review/<int:pk>/", review_views.review_page, name="review-page"),
    path("manage/", include("portal_manage.urls")),
]
