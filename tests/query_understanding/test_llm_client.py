"""The one reader of JSON in a model's reply, used by query understanding and by the evaluator's judge."""

from __future__ import annotations

import pytest

from query_understanding.llm import UnusableAnswer, read_json


@pytest.mark.parametrize(
    "text",
    [
        '{"questions": ["What is owed?"]}',
        '```json\n{"questions": ["What is owed?"]}\n```',
        'Here you are: {"questions": ["What is owed?"]} Hope this helps.',
    ],
)
def test_one_object_is_read_through_fences_and_prose(text):
    assert read_json(text) == {"questions": ["What is owed?"]}


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "the answer was empty"), ("```\n```", "the answer was empty"), ('{"questions": ["Wh', "not valid JSON")],
)
def test_an_unreadable_reply_says_why(text, reason):
    with pytest.raises(UnusableAnswer, match=reason):
        read_json(text)
