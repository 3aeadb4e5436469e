"""A bad, slow or hostile language-model endpoint costs one message its deadline at most, then nothing: the real
openai client against misbehaving endpoints served on 127.0.0.1, and settings that cannot be used."""

from __future__ import annotations

import pytest

from eval.openai_stub import FAULTS, FaultyEndpoint
from query_understanding import CircuitBreaker, understand
from query_understanding.llm import LLMConfig, LLMSettingsError, configured_llm, display_url
from query_understanding.llm_path import SKIPPED_NOTE

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


@pytest.mark.parametrize(
    ("environ", "variable"),
    [
        ({"PASSENGER_LLM_TIMEOUT": "fifteen"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "-3"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "0"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "nan"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_RETRIES": "two"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_RETRIES": "-1"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_RETRIES": "1.5"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_COOLDOWN": "soon"}, "PASSENGER_LLM_COOLDOWN"),
        ({"OPENAI_BASE_URL": "localhost:11434/v1"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "ftp://127.0.0.1/v1"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "http://"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:port/v1"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1 :8080/v1"}, "OPENAI_BASE_URL"),
    ],
)
def test_a_setting_that_cannot_be_used_is_named_and_the_rules_answer(environ, variable, monkeypatch):
    environ = {"OPENAI_API_KEY": "sk-test", **environ}
    with pytest.raises(LLMSettingsError, match=variable):
        LLMConfig.from_env(environ)
    config, problem = configured_llm(environ)
    assert config is None and variable in problem
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    result = understand([MESSAGE], cache=None)
    assert (result.path, result.questions) == ("offline", understand([MESSAGE], config=None).questions)


def test_good_settings_are_read():
    config = LLMConfig.from_env(
        {
            "OPENAI_BASE_URL": " http://127.0.0.1:11434/v1 ",
            "PASSENGER_LLM_TIMEOUT": "7.5",
            "PASSENGER_LLM_RETRIES": "2",
            "PASSENGER_LLM_COOLDOWN": "30",
        }
    )
    assert (config.base_url, config.timeout, config.max_retries, config.cooldown) == (
        "http://127.0.0.1:11434/v1",
        7.5,
        2,
        30.0,
    )


def test_credentials_in_the_address_are_never_shown():
    url = "https://alice:s3cret@llm.example.org:8443/v1?api-key=t0ken#frag"
    assert display_url(url) == "https://llm.example.org:8443/v1"
    config = LLMConfig.from_env({"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-hidden"})
    shown = f"{config.where} {config!r}"
    assert not any(secret in shown for secret in ("alice", "s3cret", "t0ken", "sk-hidden"))
