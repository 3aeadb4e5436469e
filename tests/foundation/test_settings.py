"""Settings are read from the environment once, into one typed object: defaults, each value that cannot be used
named, and credentials never shown."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from foundation.settings import (
    DEFAULT_RETENTION_DAYS,
    PROJECT_ROOT,
    LLMSettings,
    LLMSettingsError,
    Settings,
    display_url,
)


def test_defaults():
    settings = Settings.from_environment({})
    assert settings.data_dir == PROJECT_ROOT / "data"
    assert settings.store_dir == PROJECT_ROOT / "data" / "store"
    assert settings.chroma_url == ""
    assert settings.feedback_db == PROJECT_ROOT / "data" / "feedback.sqlite3"
    assert settings.database_url == ""
    assert settings.retention_days == DEFAULT_RETENTION_DAYS == 90
    assert not settings.identity_provider
    assert settings.llm is None and settings.problems == ()


def test_paths_and_the_chroma_server_are_read(tmp_path):
    settings = Settings.from_environment(
        {
            "PASSENGER_KB_STORE": f" {tmp_path / 'store'} ",
            "PASSENGER_CHROMA_URL": "http://127.0.0.1:8000/ ",
            "PASSENGER_FEEDBACK_DB": str(tmp_path / "log.sqlite3"),
        }
    )
    assert settings.store_dir == tmp_path / "store" and settings.feedback_db == tmp_path / "log.sqlite3"
    assert settings.chroma_url == "http://127.0.0.1:8000"


def test_one_data_folder_holds_the_store_and_the_log_unless_one_is_moved(tmp_path):
    settings = Settings.from_environment({"PASSENGER_DATA_DIR": str(tmp_path)})
    assert settings.store_dir == tmp_path / "store" and settings.feedback_db == tmp_path / "feedback.sqlite3"
    moved = Settings.from_environment({"PASSENGER_DATA_DIR": str(tmp_path), "PASSENGER_KB_STORE": "/srv/kb"})
    assert moved.store_dir == Path("/srv/kb") and moved.feedback_db == tmp_path / "feedback.sqlite3"


def test_the_database_address_is_read_and_never_shown_with_its_password():
    url = "postgresql://passenger:s3cret@127.0.0.1:5432/passenger"
    settings = Settings.from_environment({"PASSENGER_DATABASE_URL": f" {url} "})
    assert settings.database_url == url
    assert "s3cret" not in repr(settings)


def test_the_process_environment_is_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv("PASSENGER_KB_STORE", str(tmp_path))
    assert Settings.from_environment().store_dir == Path(tmp_path)


def test_the_retention_period():
    assert Settings.from_environment({"PASSENGER_RETENTION_DAYS": "30"}).retention_days == 30
    assert Settings.from_environment({"PASSENGER_RETENTION_DAYS": "3650"}).retention_days == 3650


@pytest.mark.parametrize("bad", ["0", "-5", "thirty", "1e9", "3651"])
def test_a_retention_period_that_cannot_be_used_keeps_90_days_and_says_so(bad, caplog):
    with caplog.at_level(logging.WARNING, logger="foundation.settings"):
        settings = Settings.from_environment({"PASSENGER_RETENTION_DAYS": bad})
    assert settings.retention_days == DEFAULT_RETENTION_DAYS
    assert settings.problems == ()
    assert f"PASSENGER_RETENTION_DAYS must be a whole number of days from 1 to 3650, not {bad!r}" in caplog.text


def test_an_auth_section_in_the_secrets_means_an_identity_provider():
    assert not Settings.from_environment({}, {}).identity_provider
    assert Settings.from_environment({}, {"auth": {"client_id": "review"}}).identity_provider


@pytest.mark.parametrize(
    ("environ", "variable"),
    [
        ({"PASSENGER_LLM_TIMEOUT": "fifteen"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "-3"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "0"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "nan"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_TIMEOUT": "301"}, "PASSENGER_LLM_TIMEOUT"),
        ({"PASSENGER_LLM_RETRIES": "two"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_RETRIES": "-1"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_RETRIES": "1.5"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_RETRIES": "6"}, "PASSENGER_LLM_RETRIES"),
        ({"PASSENGER_LLM_COOLDOWN": "soon"}, "PASSENGER_LLM_COOLDOWN"),
        ({"PASSENGER_LLM_COOLDOWN": "3601"}, "PASSENGER_LLM_COOLDOWN"),
        ({"OPENAI_BASE_URL": "localhost:11434/v1"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "ftp://127.0.0.1/v1"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "http://"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:port/v1"}, "OPENAI_BASE_URL"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1 :8080/v1"}, "OPENAI_BASE_URL"),
    ],
)
def test_a_language_model_setting_that_cannot_be_used_is_named_and_switches_it_off(environ, variable):
    environ = {"OPENAI_API_KEY": "sk-test", **environ}
    with pytest.raises(LLMSettingsError, match=variable):
        LLMSettings.from_environment(environ)
    settings = Settings.from_environment(environ)
    assert settings.llm is None
    (problem,) = settings.problems
    assert variable in problem


def test_good_language_model_settings_are_read():
    llm = LLMSettings.from_environment(
        {
            "OPENAI_BASE_URL": " http://127.0.0.1:11434/v1 ",
            "PASSENGER_LLM_TIMEOUT": "7.5",
            "PASSENGER_LLM_RETRIES": "2",
            "PASSENGER_LLM_COOLDOWN": "30",
        }
    )
    assert (llm.api_key, llm.base_url, llm.model, llm.timeout, llm.max_retries, llm.cooldown) == (
        "not-needed",
        "http://127.0.0.1:11434/v1",
        "gpt-4o-mini",
        7.5,
        2,
        30.0,
    )
    defaults = LLMSettings.from_environment({"OPENAI_API_KEY": "sk-test", "PASSENGER_LLM_MODEL": "my-model"})
    assert (defaults.model, defaults.timeout, defaults.max_retries, defaults.cooldown) == ("my-model", 15.0, 1, 60.0)
    assert defaults.where == "api.openai.com"


def test_credentials_are_never_shown():
    url = "https://alice:s3cret@llm.example.org:8443/v1?api-key=t0ken#frag"
    assert display_url(url) == "https://llm.example.org:8443/v1"
    settings = Settings.from_environment(
        {
            "OPENAI_BASE_URL": url,
            "OPENAI_API_KEY": "sk-hidden",
            "PASSENGER_CHROMA_URL": "http://bob:chroma-hidden@127.0.0.1:8000",
        }
    )
    shown = f"{settings.llm.where} {settings.llm!r} {settings!r}"
    assert "llm.example.org" in shown
    assert not any(
        secret in shown for secret in ("alice", "s3cret", "t0ken", "sk-hidden", "bob", "chroma-hidden")
    )
