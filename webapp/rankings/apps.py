from django.apps import AppConfig

from submissions.signals import lists_changed


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = "Rankings"

    def ready(self) -> None:
        # Acceptances ask for list updates through a signal: submissions never imports rankings.
        from .tasks import queue_list_update

        lists_changed.connect(queue_list_update, dispatch_uid="rankings.queue_list_update")
