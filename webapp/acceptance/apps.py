from django.apps import AppConfig

from submissions.signals import run_measured


class AcceptanceConfig(AppConfig):
    name = "acceptance"
    verbose_name = "Acceptance results (private per-site history)"

    def ready(self) -> None:
        # An uploaded IO500 run whose numbers stand is announced by a signal: submissions
        # never imports acceptance.
        from .alerts import on_run_measured

        run_measured.connect(on_run_measured, dispatch_uid="acceptance.io500_alerts")
