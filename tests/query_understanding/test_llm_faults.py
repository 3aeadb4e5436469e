"""A bad, slow or hostile language-model endpoint costs one message its deadline at most, then nothing: the real
openai client against misbehaving endpoints served on 127.0.0.1, and settings that cannot be used."""

from __future__ import annotations

import pytest

from foundation.settings import Settings
from query_understanding import CircuitBreaker, understand
from query_understanding.llm_path import SKIPPED_NOTE
from testing.openai_stub import FAULTS, FaultyEndpoint

MESSAGE = "WestJet cancelled my flight from Calgary and I waited 2 days, what am I owed?"
NOTES = {
    "hanging": "did not answer in time",
    "dripping": "did not answer in time",
    "500": "returned an error (HTTP 500)",
    "garbage": "sent something that is not an answer",
    "oversized": "answer was too long to read",
    "refused": "could not be reached",
}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_failing_endpoint_falls_back_then_is_skipped_for_the_cool_down(fault):
    breaker = CircuitBreaker()
    offline = understand([MESSAGE], config=None)
    with FaultyEndpoint(fault, drip_seconds=0.5) as endpoint:
        config = endpoint.config(timeout=1.0, retries=1)
        first = understand([MESSAGE], config=config, cache=None, breaker=breaker)
        asked = endpoint.requests
        later = [understand([MESSAGE], config=config, cache=None, breaker=breaker) for _ in range(3)]
    assert first.path == "offline" and NOTES[fault] in first.note
    assert first.questions == offline.questions
    assert endpoint.requests == asked, "no request while the endpoint is skipped"
    assert all(result.path == "offline" and result.note == SKIPPED_NOTE for result in later)


def test_after_the_cool_down_the_endpoint_is_tried_again():
    breaker = CircuitBreaker()
    with FaultyEndpoint("500") as endpoint:
        config = endpoint.config(retries=0, cooldown=0)
        understand([MESSAGE], config=config, cache=None, breaker=breaker)
        understand([MESSAGE], config=config, cache=None, breaker=breaker)
    assert endpoint.requests == 2


def test_one_failing_endpoint_does_not_stop_another():
    breaker = CircuitBreaker()
    with FaultyEndpoint("refused") as broken, FaultyEndpoint("500") as other:
        understand([MESSAGE], config=broken.config(), cache=None, breaker=breaker)
        assert breaker.allows(other.config()) and not breaker.allows(broken.config())


def test_a_setting_that_cannot_be_used_means_the_built_in_rules():
    settings = Settings.from_environment({"OPENAI_API_KEY": "sk-test", "PASSENGER_LLM_TIMEOUT": "fifteen"})
    result = understand([MESSAGE], config=settings.llm, cache=None)
    assert (result.path, result.questions) == ("offline", understand([MESSAGE], config=None).questions)
