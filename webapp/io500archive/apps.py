from django.apps import AppConfig


class Io500ArchiveConfig(AppConfig):
    name = "io500archive"
    verbose_name = "IO500 archive import"
