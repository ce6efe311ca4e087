from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("tokens/", views.tokens, name="account-tokens"),
    path("tokens/<int:pk>/revoke/", views.revoke, name="account-token-revoke"),
    path("verify/<str:token>/", views.verify_address, name="verify-address"),
]
