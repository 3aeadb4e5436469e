"""The evaluator's judge asks through the product's language-model client and keeps its own failure reasons."""

from __future__ import annotations

import pytest

from eval.chat import Chat, StageFailure
from testing.openai_stub import StubEndpoint


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (('{"claims": [', "length"), "cut off at the token limit"),
        ("no JSON here", "not valid JSON"),
        ("[1, 2]", "JSON is not an object"),
        ("   ", "empty reply"),
    ],
)
def test_an_unusable_reply_is_a_stage_failure_naming_why(reply, reason):
    with StubEndpoint(lambda system, user: reply) as stub, pytest.raises(StageFailure, match=reason):
        Chat(stub.config).ask_json("claims", "system", "user")


def test_the_judge_sends_one_system_prompt_and_one_user_message():
    with StubEndpoint(lambda system, user: '{"claims": []}') as stub:
        assert Chat(stub.config).ask_json("claims", "the system prompt", "the user text") == {"claims": []}
    assert stub.requests == [("the system prompt", "the user text")]
