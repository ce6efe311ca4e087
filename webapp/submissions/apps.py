from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "submissions"
    verbose_name = "Submissions"

    def ready(self) -> None:
        from . import public_version

        public_version.connect()
