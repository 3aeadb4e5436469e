"""Every setting of the product, read from the environment in one place and once per use.

`Settings.from_environment()` is the only reader of the environment (and of Streamlit's secrets, which the page
hands in); everything else receives the values it needs. A language-model setting that cannot be used switches
the language model off and is named in `problems`; a bad retention period keeps the default. Both are logged
once per process.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT = 15.0
DEFAULT_RETRIES = 1
DEFAULT_COOLDOWN = 60.0
MAX_TIMEOUT = 300.0
MAX_RETRIES = 5
MAX_COOLDOWN = 3600.0
DEFAULT_RETENTION_DAYS = 90
MAX_RETENTION_DAYS = 3650

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = "data"  # under PROJECT_ROOT unless PASSENGER_DATA_DIR says otherwise

log = logging.getLogger(__name__)


class LLMSettingsError(ValueError):
    """A language-model setting in the environment cannot be used; the message names the variable."""


@dataclass(frozen=True, repr=False)
class LLMSettings:
    """OPENAI_API_KEY and/or OPENAI_BASE_URL switch the language model on; PASSENGER_LLM_MODEL names the model.

    `timeout` is the overall deadline for one message, retries included; `cooldown` how long an endpoint that
    failed is skipped.
    """

    api_key: str
    base_url: str | None
    model: str
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    cooldown: float = DEFAULT_COOLDOWN

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> LLMSettings | None:
        """None when no endpoint is configured; raises LLMSettingsError naming a setting that cannot be used."""
        api_key = environ.get("OPENAI_API_KEY", "").strip()
        base_url = _base_url(environ)
        timeout = _number(environ, "PASSENGER_LLM_TIMEOUT", DEFAULT_TIMEOUT, 0.1, MAX_TIMEOUT)
        retries = _number(environ, "PASSENGER_LLM_RETRIES", DEFAULT_RETRIES, 0, MAX_RETRIES, whole=True)
        cooldown = _number(environ, "PASSENGER_LLM_COOLDOWN", DEFAULT_COOLDOWN, 0, MAX_COOLDOWN)
        if not api_key and not base_url:
            return None
        return cls(
            api_key=api_key or "not-needed",  # local servers accept any key
            base_url=base_url,
            model=environ.get("PASSENGER_LLM_MODEL", "").strip() or DEFAULT_MODEL,
            timeout=timeout,
            max_retries=retries,
            cooldown=cooldown,
        )

    def __repr__(self) -> str:  # logs and tracebacks show settings, never the key or a credential in the address
        return (
            f"LLMSettings(model={self.model!r}, where={self.where!r}, timeout={self.timeout}, "
            f"max_retries={self.max_retries}, cooldown={self.cooldown})"
        )

    @property
    def where(self) -> str:
        """The endpoint as it may be shown or logged: never a credential."""
        return display_url(self.base_url) if self.base_url else "api.openai.com"


@dataclass(frozen=True, repr=False)
class Settings:
    """Where the store, the log and the accounts live, how long turns are kept, whether volunteers sign in through
    an identity provider (an `[auth]` section in Streamlit's secrets), and the language model.

    Everything the running product writes goes under `data_dir` (PASSENGER_DATA_DIR, else `data/` at the project
    root, git-ignored): the store's generations, the SQLite log, locks and the store's private Chroma copies.
    PASSENGER_KB_STORE and PASSENGER_FEEDBACK_DB still move one of them elsewhere. `database_url`
    (PASSENGER_DATABASE_URL, e.g. postgresql://…) puts the log and the volunteers' accounts in a database server; ""
    keeps them in the SQLite file `feedback_db`. `problems` says, in plain words, which settings cannot be used and
    what was switched off because of them.
    """

    data_dir: Path
    store_dir: Path
    chroma_url: str
    feedback_db: Path
    database_url: str
    retention_days: int
    llm: LLMSettings | None
    problems: tuple[str, ...] = ()
    identity_provider: bool = False

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> Settings:
        """The settings in `environ` (default: the process environment) and Streamlit's `secrets`."""
        environ = os.environ if environ is None else environ
        try:
            llm, problems = LLMSettings.from_environment(environ), ()
        except LLMSettingsError as error:
            _warn_once(f"language model switched off: {error}")
            llm, problems = None, (str(error),)
        data_dir = _path(environ, "PASSENGER_DATA_DIR", PROJECT_ROOT / DATA_DIR)
        return cls(
            data_dir=data_dir,
            store_dir=_path(environ, "PASSENGER_KB_STORE", data_dir / "store"),
            chroma_url=environ.get("PASSENGER_CHROMA_URL", "").strip().rstrip("/"),
            feedback_db=_path(environ, "PASSENGER_FEEDBACK_DB", data_dir / "feedback.sqlite3"),
            database_url=environ.get("PASSENGER_DATABASE_URL", "").strip(),
            retention_days=_retention_days(environ),
            llm=llm,
            problems=problems,
            identity_provider=bool(secrets and secrets.get("auth")),
        )

    def __repr__(self) -> str:  # addresses without their credentials
        return (
            f"Settings(data_dir={str(self.data_dir)!r}, store_dir={str(self.store_dir)!r}, "
            f"chroma_url={display_url(self.chroma_url)!r}, feedback_db={str(self.feedback_db)!r}, "
            f"database_url={display_url(self.database_url)!r}, retention_days={self.retention_days}, "
            f"identity_provider={self.identity_provider}, llm={self.llm!r}, "
            f"problems={self.problems!r})"
        )


def display_url(url: str) -> str:
    """The address without what may be a credential in it: no user or password, no query, no fragment."""
    if not url:
        return ""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(an address that cannot be read)"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else "(an address that cannot be read)"


def _path(environ: Mapping[str, str], name: str, default: Path) -> Path:
    configured = environ.get(name, "").strip()
    return Path(configured) if configured else default


def _retention_days(environ: Mapping[str, str]) -> int:
    """PASSENGER_RETENTION_DAYS (whole days, 1 to 3650), else 90; a value that cannot be used keeps 90 and
    says so in the log."""
    raw = environ.get("PASSENGER_RETENTION_DAYS", "").strip()
    if not raw:
        return DEFAULT_RETENTION_DAYS
    if raw.isdigit() and 1 <= int(raw) <= MAX_RETENTION_DAYS:
        return int(raw)
    _warn_once(
        f"PASSENGER_RETENTION_DAYS must be a whole number of days from 1 to {MAX_RETENTION_DAYS}, not {raw[:40]!r}; "
        f"keeping {DEFAULT_RETENTION_DAYS} days"
    )
    return DEFAULT_RETENTION_DAYS


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float, whole: bool = False):
    raw = env.get(name, "").strip()
    if not raw:
        return default
    kind = "a whole number" if whole else "a number of seconds"
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise LLMSettingsError(f"{name} must be {kind} from {low:g} to {high:g}, not {raw[:40]!r}.") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise LLMSettingsError(f"{name} must be {kind} from {low:g} to {high:g}, not {raw[:40]!r}.")
    return value


def _base_url(env: Mapping[str, str]) -> str | None:
    """The address, checked; a message about it never repeats it, since it may hold a password."""
    raw = env.get("OPENAI_BASE_URL", "").strip()
    if not raw:
        return None
    problem = "OPENAI_BASE_URL must be an address such as http://127.0.0.1:11434/v1"
    if any(ch.isspace() or ord(ch) < 32 for ch in raw):
        raise LLMSettingsError(f"{problem}; this one contains spaces or control characters.")
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - reading it checks it: a port that is not a number raises
        httpx.URL(raw)
    except (ValueError, httpx.InvalidURL):
        raise LLMSettingsError(f"{problem}; this one cannot be read as an address.") from None
    if parts.scheme not in ("http", "https"):
        raise LLMSettingsError(f"{problem}; this one does not start with http:// or https://.")
    if not parts.hostname:
        raise LLMSettingsError(f"{problem}; this one names no host.")
    return raw


_warned: set[str] = set()


def _warn_once(problem: str) -> None:
    """Settings are read at every page run; each problem is logged once per process."""
    if problem not in _warned:
        _warned.add(problem)
        log.warning("%s", problem)
