from django.apps import AppConfig

from submissions.signals import validation_requested


class ValidationConfig(AppConfig):
    name = "validation"
    verbose_name = "Validation"

    def ready(self) -> None:
        # Uploads ask for checks through a signal: submissions never imports validation.
        from .tasks import queue_validation

        validation_requested.connect(queue_validation, dispatch_uid="validation.queue")
