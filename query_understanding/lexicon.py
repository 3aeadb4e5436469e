"""The words of air passengers' problems, each list once: what the rules that read a message look for.

Topics and their families tell one issue from another (the decomposer, the rewriter, the check of the model's
questions); carriers, places and causes are the facts a question carries; air-travel, service and regime words
tell whether a dialogue is about what the knowledge base covers; other languages' words tell a message the
product cannot read. Patterns matched against `foundation.text.fold`ed text are written in plain lower case.

The words are data, `query_understanding/lexicon.toml`, so that a volunteer can add a carrier, a place or a cue
without reading code; this module reads it once, at import, and compiles every pattern then, so a pattern that
does not compile stops the start with the entry's name. Where two lists look alike but differ on purpose, both
are kept and the data file's note says why.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

LEXICON_FILE = Path(__file__).with_name("lexicon.toml")


class LexiconError(ValueError):
    """The lexicon file is missing an entry or holds a pattern that does not compile: a maintainer's error."""


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise LexiconError(f"{path}: {error}") from error


def _compile(name: str, pattern: str, flags: int = 0) -> re.Pattern:
    try:
        return re.compile(pattern, flags)
    except re.error as error:
        raise LexiconError(f"{LEXICON_FILE}: {name}: {error}") from error


def _entry(section: str, name: str):
    try:
        return _DATA[section][name] if name else _DATA[section]
    except KeyError as error:
        raise LexiconError(f"{LEXICON_FILE}: no {name or 'entries'!r} in [{section}]") from error


def _pattern(name: str, flags: int = 0) -> re.Pattern:
    """An entry of [patterns], compiled."""
    return _compile(name, _entry("patterns", name), flags)


def _either(items: list[str]) -> str:
    return "|".join(items)


def _by_first_letter(names: list[str]) -> str:
    """The names as one alternation, grouped by their first letter: the same matches, but a story is tried a letter
    at a time at each position rather than name by name through a gazetteer of some 900 names."""
    groups: dict[str, list[str]] = {}
    rest = []
    for name in names:
        if name[:1].isalpha():
            groups.setdefault(name[0], []).append(name[1:])
        else:
            rest.append(name)  # "(?:las )?vegas"
    return _either([f"{letter}(?:{_either(tails)})" for letter, tails in groups.items()] + rest)


_DATA = _read(LEXICON_FILE)

# --- Topics: the issues a passenger raises, as cue patterns (English and French), matched case-insensitively ---

# topic -> (family, cue pattern). A family says which topics speak of the same thing.
TOPICS: dict[str, tuple[str, str]] = {
    topic: (entry["family"], _either(entry["cues"])) for topic, entry in _entry("topics", "").items()
}
EVENT_FAMILY = "event"
FLIGHT_FAMILIES = frozenset(_entry("families", "flight"))
GENERIC_FAMILIES = frozenset(_entry("families", "generic"))
SITUATION_TOPICS = frozenset(_entry("families", "situation_topics"))

_TOPIC_PATTERNS = {topic: _compile(f"topics.{topic}", pattern, re.IGNORECASE) for topic, (_, pattern) in TOPICS.items()}


@lru_cache(maxsize=1024)
def topics(text: str) -> frozenset[str]:
    """The topics a text raises; kept for the texts seen last, because the rules ask it of a message's sentences
    and clauses again and again while they split it into questions."""
    return frozenset(topic for topic, pattern in _TOPIC_PATTERNS.items() if pattern.search(text))


def families(text: str) -> frozenset[str]:
    return frozenset(TOPICS[topic][0] for topic in topics(text))


def cue_words(text: str, wanted: Iterable[str]) -> list[str]:
    """The words of `text` that matched the wanted topics, in order of appearance."""
    found = [match for topic in wanted for match in _TOPIC_PATTERNS[topic].finditer(text)]
    return [match.group(0) for match in sorted(found, key=lambda match: match.start())]


# --- Carriers, as written: a fact a question carries ---

_CARRIERS_ANY_CASE = _either(_entry("carriers", "any_case"))
_CARRIERS_CAPITALISED = _either(_entry("carriers", "capitalised"))
CARRIER = _compile("carriers", rf"\b(?:(?i:{_CARRIERS_ANY_CASE})|{_CARRIERS_CAPITALISED})\b")
_PORTER = _entry("words", "porter")  # the airline, not the French verb
CANADIAN_CARRIER = _compile("canadian_carrier", _entry("patterns", "canadian_carrier").replace("{porter}", _PORTER))

# --- Places, airport codes and Canada's rules: where the flight went, and whether Canada is named ---

_CANADIAN_PLACES = _by_first_letter(_entry("places", "canadian"))
_FOREIGN_PLACES = _by_first_letter(_entry("places", "foreign"))
PLACE = _compile("places", rf"\b(?:{_by_first_letter(_entry('places', 'canadian') + _entry('places', 'foreign'))})\b")
FOREIGN_PLACE = _compile("places.foreign", rf"\b(?:{_FOREIGN_PLACES})\b")
CANADIAN_PLACE = _compile("places.canadian", rf"\b(?:{_CANADIAN_PLACES})\b")
UK_LONDON = _pattern("uk_london")
AUSTRALIA = _pattern("australia")
NOT_PLACES = frozenset(_entry("places", "not_places"))
CANADA = _pattern("canada")
CANADIAN_RULES = _pattern("canadian_rules")
_APART_FROM = _entry("patterns", "apart_from")
SEPARATE_BOOKING = _compile(
    "separate_booking", _entry("patterns", "separate_booking").replace("{apart_from}", _APART_FROM)
)
# "separate from our Air Canada tickets home": the words after it name the flight that is not the trouble
APART_FROM = _compile("apart_from", rf"\b(?:{_APART_FROM}) (?:[\w-]+ ){{0,4}}")
RESIDENCE = _compile("residence", _entry("patterns", "residence").replace("{places}", _CANADIAN_PLACES))
SCOPE_WORDS = _pattern("scope_words")
DOMESTIC_WORDS = _pattern("domestic_words")
INTERNATIONAL_WORDS = _pattern("international_words")
DOMESTIC_ABROAD = _compile(
    "domestic_abroad", _entry("patterns", "domestic_abroad").replace("{abroad}", _FOREIGN_PLACES)
)
CANADIAN_AIRPORT_CODE = _pattern("canadian_airport_code")
AIRPORT_CODE = _pattern("airport_code")
ROUTE_OF_CODES = _pattern("route_of_codes")
ROUTE_OF_CODES_AMONG_WORDS = _pattern("route_of_codes_among_words")

# --- Disruptions and their causes ---

DISRUPTION = _pattern("disruption")
UNEVENTFUL_FLIGHT = _pattern("uneventful_flight")
WENT_WELL = _pattern("went_well")
CONTRAST = _pattern("contrast")
DISRUPTION_CAUSE = _pattern("disruption_cause", re.IGNORECASE)

# --- What the knowledge base covers: air travel, other services, foreign regimes (all folded) ---

_AIR_TRAVEL_CARRIERS = _either(_entry("words", "air_travel_carriers")).replace("{porter}", _PORTER)
AIR_TRAVEL = _compile("air_travel", _entry("patterns", "air_travel").replace("{carriers}", _AIR_TRAVEL_CARRIERS))
_FOREIGN_LINES = _either(_entry("words", "foreign_lines"))
_OTHER_MODES = _either(_entry("words", "other_modes") + _entry("words", "foreign_lines"))
OTHER_SERVICE = _compile("other_service", _entry("patterns", "other_service").replace("{modes}", _OTHER_MODES))
OTHER_MODE = _compile("other_mode", _entry("patterns", "other_mode").replace("{modes}", _OTHER_MODES))
LOYALTY_PROGRAM = _pattern("loyalty_program")
ON_ANY_MODE = _pattern("on_any_mode")
AT_AIRPORT = _pattern("at_airport")
STAY_AND_RIDE = _pattern("stay_and_ride")
FLIGHT_NAMED = _pattern("flight_named")
CANCELLED_BY_PASSENGER = _pattern("cancelled_by_passenger")
RULES_HOPED_FOR = _pattern("rules_hoped_for")
HEARSAY = _pattern("hearsay")
NO_CANADA_CARRIER = _pattern("no_canada_carrier")
ASKING = _pattern("asking")
DISABILITY = _pattern("disability")
MODES_BEYOND_ACCESSIBILITY = _compile(
    "modes_beyond_accessibility",
    _entry("patterns", "modes_beyond_accessibility").replace("{foreign_lines}", _FOREIGN_LINES),
)
FOREIGN_REGIME = _pattern("foreign_regime")

# --- Languages: telling a message the product cannot read, and words too common to relate two texts ---

OTHER_LANGUAGE_AIR_WORDS = frozenset(_entry("words", "other_language_air"))
OTHER_LANGUAGE_COMMON_WORDS = frozenset(_entry("words", "other_language_common"))
ENGLISH_FRENCH_WORDS = frozenset(_entry("words", "english_french"))
TOO_COMMON_TO_RELATE = frozenset(_entry("words", "too_common_to_relate"))
