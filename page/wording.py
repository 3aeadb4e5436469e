"""The passenger page's fixed wording, in English and French, and how it describes the knowledge base.

Every sentence the page says on its own behalf is in `page/wording_text/` (one TOML file per language, the same
keys in each), so that none of it is machine-written and a translator edits data, not code. The files are read
and checked once, at import: a key missing from one language, or an `Outcome` without its sentence, stops the
page at start rather than in front of a passenger. Text that comes from a passenger or from the law is never
formatted here: the page shows it as plain text.
"""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

from foundation.text import LANGUAGES
from kb.sources import Instrument, Sources
from retrieval.outcome import Outcome

WORDING_DIR = Path(__file__).with_name("wording_text")
LANGUAGE_LABELS = {"en": "English", "fr": "Français"}  # each language as named in its own words, for the switch
# A language as named in a sentence of the interface: LANGUAGE_NAMES[interface language][language].
LANGUAGE_NAMES = {"en": {"en": "English", "fr": "French"}, "fr": {"en": "anglais", "fr": "français"}}


class WordingError(ValueError):
    """The wording files disagree: a maintainer's error, named before any passenger sees the page."""


def load_wording(directory: Path = WORDING_DIR) -> dict[str, dict[str, str]]:
    """Each language's sentences by key; raises WordingError naming what is missing where."""
    text = {lang: tomllib.loads((directory / f"{lang}.toml").read_text(encoding="utf-8")) for lang in LANGUAGES}
    keys = set().union(*(table.keys() for table in text.values())) | {str(outcome) for outcome in Outcome}
    problems = [
        f"{directory / f'{lang}.toml'}: no sentence for {key!r}"
        for lang, table in text.items()
        for key in sorted(keys - table.keys())
    ]
    problems += [
        f"{directory / f'{lang}.toml'}: {key!r} is not a sentence"
        for lang, table in text.items()
        for key, value in table.items()
        if not isinstance(value, str)
    ]
    if problems:
        raise WordingError("; ".join(problems))
    return text


TEXT = load_wording()

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$&=\"'])")


def say(lang: str, key: str | Outcome, **values) -> str:
    """The fixed sentence `key` in `lang` (English when the language is unknown), with `values` filled in."""
    sentence = TEXT.get(lang, TEXT["en"])[key]
    return sentence.format(**values) if values else sentence


def escape_markdown(text: str) -> str:
    """Text that Markdown shows exactly as typed: every character Markdown or Streamlit could read is escaped.

    For the few places that only take Markdown (expander labels, captions); elsewhere the page uses st.text.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


def language_name(lang: str, code: str) -> str:
    return LANGUAGE_NAMES.get(lang, LANGUAGE_NAMES["en"]).get(code, code)


def built_at(meta: dict) -> str:
    """When the knowledge base was built, to the minute: "2026-11-22 04:30 UTC"."""
    stamp = meta.get("built_at", "")
    return f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) >= 16 else stamp or "?"


def consolidation_dates(sources: Sources) -> list[str]:
    """The snapshot's consolidation dates, oldest first, each once."""
    return sorted({instrument.consolidated for instrument in sources.instruments})


def join_words(lang: str, items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {say(lang, 'and')} {items[-1]}"


def instrument_lines(sources: Sources, lang: str) -> list[str]:
    """One line per instrument: its name in `lang` when the snapshot has it, its languages and dates."""
    by_doc: dict[str, list[Instrument]] = defaultdict(list)
    for instrument in sources.instruments:
        by_doc[instrument.doc].append(instrument)
    lines = []
    for doc, versions in by_doc.items():
        named = next((v for v in versions if v.lang == lang), versions[0])
        languages = [language_name(lang, code) for code in sorted({v.lang for v in versions})]
        dates = sorted({v.consolidated for v in versions})
        lines.append(
            say(
                lang,
                "kb_instrument",
                instrument=named.instrument,
                doc=doc,
                languages=join_words(lang, languages),
                dates=join_words(lang, dates),
            )
        )
    return lines
