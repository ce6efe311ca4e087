from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "submissions"
    verbose_name = "Submissions"

    def ready(self) -> None:
        from django.core import checks

        from . import admission, public_version

        public_version.connect()
        checks.register(admission.check_capacity)
