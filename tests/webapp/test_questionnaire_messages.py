"""Questionnaire problems name the field (key and label) and the value actually found."""

from __future__ import annotations

from typing import Any

from submissions.questionnaire import LEVEL_KEY, problems

from .helpers import QUESTIONNAIRE


def _messages(answers: Any) -> dict[str, str]:
    return dict(problems(answers))


def test_complete_answers_have_no_problems() -> None:
    assert problems(QUESTIONNAIRE) == []


def test_short_answer_names_field_word_count_and_text() -> None:
    found = _messages({**QUESTIONNAIRE, "caching": "page cache only"})
    assert found == {
        "caching": "caching (Caching): at least 10 words needed, got 3: 'page cache only'"
    }


def test_wrong_type_and_missing_answer_say_what_was_found() -> None:
    answers = {**QUESTIONNAIRE, "trust": 42}
    del answers["purpose"]
    found = _messages(answers)
    assert found["trust"] == "trust (Trust): a text answer is needed, got 42"
    assert found["purpose"] == "purpose (System purpose): answer missing"


def test_level_names_the_value_found_and_long_values_are_cut() -> None:
    found = _messages({**QUESTIONNAIRE, LEVEL_KEY: "x" * 500})
    message = found[LEVEL_KEY]
    assert message.startswith("expected_level: must be one of undefined, limited, ")
    assert message.endswith("got '" + "x" * 56 + "...")
    assert _messages({k: v for k, v in QUESTIONNAIRE.items() if k != LEVEL_KEY})[
        LEVEL_KEY
    ].endswith("got nothing")


def test_not_an_object() -> None:
    assert problems(["a"]) == [("", "the questionnaire must be a JSON object, got list")]
