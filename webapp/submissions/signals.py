"""What the submissions app announces to the apps that build on it.

``validation`` depends on ``submissions`` (it reads and stores submission rows); the reverse
would be a cycle. So an upload that needs checking does not call the validation task: it
sends ``validation_requested`` and the validation app, which connects a receiver when it is
ready, queues its task. Likewise an acceptance sends ``lists_changed`` and ``rankings``
queues the update of the lists.
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``submission_id`` (int) once a submission's archive and metadata are saved.
validation_requested = Signal()


def request_validation(submission_id: int) -> None:
    """Ask for the automatic checks of one submission (queued after the transaction commits).

    Nobody listening is a deployment defect (the validation app is not installed); failing
    loudly keeps the submission from waiting in ``submitted`` for a check never queued.
    """
    answered = validation_requested.send(sender=None, submission_id=submission_id)
    if not answered:
        raise RuntimeError("no receiver for validation_requested: is 'validation' installed?")


# Sent with ``submission_id`` (int) when a submission's place on the ranked lists may have
# changed: it was accepted, or an accepted one left that state or was edited.
lists_changed = Signal()


def announce_list_change(submission_id: int) -> None:
    """Ask for the lists to be brought up to date with one submission (after the commit).

    Nobody listening means the lists would silently miss an accepted run: fail loudly.
    """
    answered = lists_changed.send(sender=None, submission_id=submission_id)
    if not answered:
        raise RuntimeError("no receiver for lists_changed: is 'rankings' installed?")


# Sent with ``submission_id`` (int) when a run's numbers stand: it passed the automatic checks
# or the committee accepted it. Who listens (the acceptance app's regression alerts) may read
# the run's phases; nobody listening is fine, as nothing waits on an answer.
run_measured = Signal()
