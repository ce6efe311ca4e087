"""The guided metadata forms shared by the upload and edit pages.

Without JavaScript every button that changes the form (fill from a pasted description, add or
remove a repeated group) posts the page and gets it back re-laid out, with nothing stored; the
script (static/js/schema-form.js) does the same in the browser. Only the final button stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import HttpRequest

from ioscore.system_description import merge
from ioscore_site.whole_numbers import whole_number

from . import questionnaire as questions
from .intake import IntakeError, parse_json_field
from .models import ReproducibilityLevel
from .schema_form import MAX_ITEMS, PREFIX, SystemDescriptionForm, lookup, posted_tree

GUIDED = "guided"  # hidden input: the page's structured fields, not JSON, carry the metadata
ACTION = "_action"  # "prefill", "add:<array path>", "remove:<item path>"
MAX_PASTE_BYTES = 1 << 20


class QuestionnaireForm(forms.Form):
    """One text area per question of ``submissions.questionnaire`` (the one owner), and the
    claimed level with what each level means."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.checked_answers: dict[str, Any] | None = None
        self.fields_ok = False
        for key, label in {**questions.QUESTIONS, **questions.OPTIONAL}.items():
            required = key in questions.QUESTIONS
            self.fields[f"q-{key}"] = forms.CharField(
                label=label,
                required=False,
                strip=True,
                max_length=20_000,
                widget=forms.Textarea(attrs={"rows": 3}),
                help_text=questions.QUESTION_HELP.get(key, "")
                + (f" At least {questions.MIN_WORDS} words." if required else " Optional."),
            )
        self.fields[f"q-{questions.LEVEL_KEY}"] = forms.ChoiceField(
            label="Expected reproducibility level (your claim; the committee decides)",
            choices=[(level.value, level.label) for level in ReproducibilityLevel],
            required=False,
            widget=forms.RadioSelect,
        )

    @staticmethod
    def initial_for(answers: Any) -> dict[str, Any]:
        if not isinstance(answers, dict):
            return {}
        return {f"q-{key}": value for key, value in answers.items() if isinstance(value, str)}

    @property
    def level_value(self) -> Any:
        return self[f"q-{questions.LEVEL_KEY}"].value()

    @property
    def level_errors(self) -> list[str]:
        if not self.is_bound:
            return []
        return [str(e) for e in self.errors.get(f"q-{questions.LEVEL_KEY}", [])]

    def levels(self) -> list[tuple[str, str, str]]:
        return [(lv.value, lv.label, questions.LEVEL_HELP[lv]) for lv in ReproducibilityLevel]

    def answers(self) -> dict[str, Any]:
        if self.checked_answers is None:
            self.checked_answers = {
                name[2:]: value for name, value in self.cleaned_data.items() if value
            }
        return self.checked_answers

    def check(self) -> bool:
        """Field checks, then the questionnaire's rules beside each answer; see
        ``SystemDescriptionForm.check`` for ``fields_ok``."""
        self.fields_ok = self.is_valid()
        if not self.fields_ok:
            return False
        for key, message in questions.problems(self.answers()):
            name = f"q-{key}"
            text = message.split(": ", 1)[1] if message.startswith(f"{key} (") else message
            if name in self.fields:
                self.add_error(name, text.removeprefix(f"{key}: "))
            else:
                self.add_error(None, message)
        return not self.errors


@dataclass
class Guided:
    """The two metadata forms of a page, and what happened to them."""

    system: SystemDescriptionForm
    questionnaire: QuestionnaireForm
    notice: str = ""  # said after a form-changing button
    paste_error: str = ""

    @property
    def stores(self) -> bool:
        """False when the post only changed the form (nothing may be stored)."""
        return not self.notice and not self.paste_error


def is_guided(request: HttpRequest) -> bool:
    return request.method == "POST" and GUIDED in request.POST


def changes_form_only(request: HttpRequest) -> bool:
    """A guided post that only fills, grows or shrinks the form (stores nothing, so it is not
    an upload for the rate limit)."""
    if not is_guided(request):
        return False
    pasted = str(request.POST.get("system", "")).strip() or "system_file" in request.FILES
    return bool(request.POST.get(ACTION) or pasted)


def unbound(system_tree: Any, answers: Any) -> Guided:
    return Guided(
        SystemDescriptionForm(tree=system_tree),
        QuestionnaireForm(initial=QuestionnaireForm.initial_for(answers)),
    )


def kept(request: HttpRequest) -> Guided:
    """What was typed, shown again unchecked (a refused post: too many uploads)."""
    answers = QuestionnaireForm(request.POST)
    answers.is_valid()
    return Guided(
        SystemDescriptionForm(tree=posted_tree(request.POST)),
        QuestionnaireForm(initial=answers.cleaned_data),
    )


def checked(system_tree: Any, answers: Any) -> Guided:
    """The stored metadata, checked: what the schema or the questionnaire's rules say about
    it appears beside the fields when the owner opens the edit page."""
    shown = SystemDescriptionForm(tree=system_tree)
    system = SystemDescriptionForm(data=shown.initial)
    questionnaire = QuestionnaireForm(data=QuestionnaireForm.initial_for(answers))
    system.check()
    questionnaire.check()
    return Guided(system, questionnaire)


def pasted_text(request: HttpRequest) -> str:
    """The description pasted into the text area, or read from the chosen JSON file."""
    upload = request.FILES.get("system_file")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_PASTE_BYTES:
            raise IntakeError("system", f"system: the file is larger than {MAX_PASTE_BYTES} bytes")
        try:
            return bytes(upload.read(MAX_PASTE_BYTES + 1)).decode("utf-8")
        except UnicodeDecodeError:
            raise IntakeError("system", "system: the file is not UTF-8 text") from None
    return str(request.POST.get("system", ""))


def from_post(request: HttpRequest) -> Guided:
    """Bind or re-lay out the forms from a guided post (see the module docstring)."""
    action = str(request.POST.get(ACTION, ""))
    answers = QuestionnaireForm(request.POST)
    try:
        text = pasted_text(request)
        pasted = parse_json_field("system", text) if text.strip() else None
    except IntakeError as exc:
        return Guided(SystemDescriptionForm(request.POST), answers, paste_error=str(exc))
    if action == "prefill" and pasted is None:
        answers.is_valid()
        return Guided(
            SystemDescriptionForm(tree=posted_tree(request.POST)),
            QuestionnaireForm(initial=answers.cleaned_data),
            notice="Nothing to fill the form from: paste the JSON or choose its file first.",
        )
    if pasted is not None or action.startswith(("add:", "remove:")):
        answers.is_valid()  # keep what was typed, without complaining yet
        answers = QuestionnaireForm(initial=answers.cleaned_data)
        raw = posted_tree(request.POST)
        if pasted is not None:
            filled = SystemDescriptionForm(tree=pasted).initial
            return Guided(
                SystemDescriptionForm(tree=merge(pasted, raw)),
                answers,
                notice=f"Filled {len(filled)} field(s) from the pasted description; check "
                "them and complete the rest.",
            )
        return Guided(SystemDescriptionForm(tree=_resized(raw, action)), answers, "Form updated.")
    return Guided(SystemDescriptionForm(request.POST), answers)


def _resized(raw: dict[str, Any], action: str) -> dict[str, Any]:
    """``raw`` with one repeated group added at, or removed from, the path in ``action``."""
    verb, _, path = action.partition(":")
    if verb == "add":
        items = _list_at(raw, path)
        if items is not None and len(items) < MAX_ITEMS:
            items.append({})
    elif verb == "remove" and "." in path:
        parent, _, position = path.rpartition(".")
        items = _list_at(raw, parent)
        index = whole_number(position)
        if items is not None and index is not None and index < len(items):
            del items[index]
    return raw


def _list_at(raw: dict[str, Any], path: str) -> list[Any] | None:
    """The list at ``path`` in the posted tree, created (empty) when the form had none."""
    parent_path, _, key = path.rpartition(".")
    parent = lookup(raw, parent_path) if parent_path else raw
    if not isinstance(parent, dict) or not key:
        return None
    items = parent.get(key)
    if items is None:
        items = parent[key] = []
    return items if isinstance(items, list) else None


__all__ = ["GUIDED", "PREFIX", "Guided", "QuestionnaireForm", "from_post", "is_guided", "unbound"]
