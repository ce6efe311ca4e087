"""Asynchronous validation of uploaded archives (Celery) with the shared results library."""
