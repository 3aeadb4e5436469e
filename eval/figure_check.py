"""The hallucination check that needs no LLM: every figure an answer states must be found in what it was given.

A figure is an amount of money, a duration or deadline, a section or article reference, or any other
number (a count). Both the answer and its grounding (the passages shown to the writer and the
passenger's own messages) are read by the same extractor, so "$1,000" matches "1 000 $" and
"1000 dollars", "thirty days" matches "30 days", "s. 19" matches "section 19", "19(3)" and
"l'article 19", and "one year" matches "the first anniversary".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9,
    "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "seize": 16,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "dix": 10, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "premier": 1, "deuxième": 2, "troisième": 3,
}  # fmt: skip
_SMALL_WORDS = "|".join(sorted(_UNITS, key=len, reverse=True))
_TENS_WORDS = "|".join(_TENS)
_NUMBER_WORD = rf"(?:(?:{_TENS_WORDS})(?:[- ](?:et[- ])?(?:{_SMALL_WORDS}))?|{_SMALL_WORDS})"
_DIGITS = r"\d{1,3}(?:(?:,|[ \u00a0\u202f])\d{3})+(?!\d)(?:\.\d+)?|\d+(?:[.,]\d+)?"
_NUMBER = rf"(?:{_DIGITS}|\b{_NUMBER_WORD}\b)"
_JOIN = r"\s*(?:-|–|to|and|or|à|et|ou)\s*<?"

_MONEY = re.compile(
    rf"(?P<pre>C?A?\$|CAD|€)\s?(?P<n1>{_DIGITS})"
    rf"|(?P<n2>{_NUMBER})\s?(?P<post>\$|CAD|dollars?|€|euros?|EUR|SDRs?|[Ss]pecial [Dd]rawing [Rr]ights|DTS"
    r"|droits de tirage spéciaux)(?![\w])",
    re.IGNORECASE,
)
_DURATION_UNIT = (
    r"(?P<unit>minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|yrs?"
    r"|heures?|jours?|semaines?|mois|années?|ans?)"
)
_DURATION = re.compile(
    rf"(?P<numbers>{_NUMBER}(?:{_JOIN}{_NUMBER})*)\s?\+?(?:-|\s)?{_DURATION_UNIT}(?![\w])"
    rf"|(?P<ordinal>\b(?:{'|'.join(_ORDINALS)})) (?P<anniversary>anniversary|anniversaire)",
    re.IGNORECASE,
)
_REF_NUMBER = r"\d+(?:\.\d+)*(?:\s?\(\w{1,4}\))*(?:[a-z]\))?"
_REFERENCE = re.compile(
    r"(?:\b(?:sub)?sections?|\b(?:sub)?paragraphs?|\bparagraphes?|\balinéas?|\barticles?|\bart\.|\bpar\."
    r"|(?<![\w'’])ss?\.?(?=\s?\d))"
    rf"\s?(?P<numbers>{_REF_NUMBER}(?:{_JOIN}{_REF_NUMBER})*)"
    r"|\b(?P<bare>\d+(?:\.\d+)?\(\d{1,3}\)(?:\(\w{1,4}\))*(?:[a-z]\))?)"
    r"|^(?P<label>\d+(?:\.\d+)*)(?= \(\d{1,3}\) | (?-i:[A-Z]))",  # a section's own label opening a line of law
    re.IGNORECASE | re.MULTILINE,
)
_CITATION = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]|\b(?:passages?|extraits?)\s\d+(?:\s*(?:,|and|et)\s*\d+)*", re.I)
_INSTRUMENT_ID = re.compile(r"\b(?:SOR|DORS)[/-]\d+[/-]\d+|\bC-\d+(?:\.\d+)?\b")
_CLOCK_TIME = re.compile(r"\b\d{1,2}[:h]\d{2}\s?(?:[ap]\.?m\.?)?|\b\d{1,2}\s?[ap]\.?m\.?", re.IGNORECASE)
_COUNT = re.compile(rf"{_DIGITS}|\b(?:{_NUMBER_WORD})\b(?=\s[a-zà-ÿ]{{3,}})", re.IGNORECASE)
_NOT_COUNT_WORDS = {"one", "un", "une"}  # "one of", "no one", "un vol": too common to be a count


@dataclass(frozen=True)
class Figure:
    """One figure found in a text: what kind, its normalised value, and where it is."""

    kind: str  # "money", "duration", "reference" or "count"
    value: tuple
    span: str
    start: int
    end: int


@dataclass(frozen=True)
class FigureFinding:
    """A figure of the answer found neither in the passages nor in the passenger's messages."""

    figure: Figure

    @property
    def severity(self) -> int:
        """A wrong amount, deadline or section misleads a passenger most; a stray count a little less."""
        return 4 if self.figure.kind == "count" else 5

    @property
    def justification(self) -> str:
        return f"the {self.figure.kind} {self.figure.span!r} appears in neither the passages nor the conversation"


def number_value(text: str) -> float:
    """'1,000', '1 000', '2,5', 'thirty', 'forty-eight', 'vingt et un' -> a number."""
    word = text.strip().lower()
    if word and not word[0].isdigit():
        parts = re.split(r"[- ]+(?:et[- ]+)?", word)
        return float(sum(_TENS.get(part, _UNITS.get(part, 0)) for part in parts))
    if re.fullmatch(r"\d{1,3}(?:[, \u00a0\u202f]\d{3})+(?:\.\d+)?", word):
        return float(re.sub(r"[, \u00a0\u202f]", "", word))
    return float(word.replace(",", "."))


def _currency(marker: str) -> str:
    marker = marker.lower()
    if marker in {"€", "eur"} or marker.startswith("euro"):
        return "EUR"
    if marker.startswith(("sdr", "special", "dts", "droits")):
        return "SDR"
    return "$"


def _duration_unit(unit: str) -> str:
    unit = unit.lower()
    for canonical, forms in {
        "minute": ("min",),
        "hour": ("h", "hour", "hr", "heure"),
        "day": ("day", "jour"),
        "week": ("week", "semaine"),
        "month": ("month", "mois"),
        "year": ("year", "yr", "an", "année"),
    }.items():
        if any(unit == form or unit.startswith(form) and form != "h" for form in forms):
            return canonical
    return unit


def _references(numbers: str) -> list[str]:
    """'19(3)' -> ['19']; '8 and 9' -> ['8', '9']; '85.04' -> ['85.04']: matched at section level."""
    return re.findall(r"(?<![(\w.])\d+(?:\.\d+)*", numbers)


def extract_figures(text: str) -> list[Figure]:
    """Every figure in `text`, each character counted once: references, then money, durations, counts."""
    taken = [False] * len(text)
    figures: list[Figure] = []

    def free(start: int, end: int) -> bool:
        return not any(taken[start:end])

    def take(start: int, end: int) -> None:
        taken[start:end] = [True] * (end - start)

    for pattern in (_CITATION, _INSTRUMENT_ID, _CLOCK_TIME):
        for match in pattern.finditer(text):
            take(*match.span())
    for match in _REFERENCE.finditer(text):
        if not free(*match.span()):
            continue
        numbers = match.group("numbers") or match.group("bare") or match.group("label")
        for number in _references(numbers):
            figures.append(Figure("reference", (number,), match.group(0), *match.span()))
        take(*match.span())
    for match in _MONEY.finditer(text):
        if not free(*match.span()):
            continue
        amount = match.group("n1") or match.group("n2")
        currency = _currency(match.group("pre") or match.group("post"))
        figures.append(Figure("money", (number_value(amount), currency), match.group(0), *match.span()))
        take(*match.span())
    for match in _DURATION.finditer(text):
        if not free(*match.span()):
            continue
        if match.group("ordinal"):
            values = [(float(_ORDINALS[match.group("ordinal").lower()]), "year")]
        else:
            unit = _duration_unit(match.group("unit"))
            numbers = re.findall(_NUMBER, match.group("numbers"), re.IGNORECASE)
            values = [(number_value(number), unit) for number in numbers]
        for value in values:
            figures.append(Figure("duration", value, match.group(0), *match.span()))
        take(*match.span())
    for match in _COUNT.finditer(text):
        if not free(*match.span()) or match.group(0).lower() in _NOT_COUNT_WORDS:
            continue
        figures.append(Figure("count", (number_value(match.group(0)),), match.group(0), *match.span()))
    return sorted(figures, key=lambda figure: figure.start)


def _grounding_keys(texts: Iterable[str], units: Iterable[str]) -> set[tuple]:
    """What the answer may state: every figure of the grounding texts, any number of them as a count."""
    keys: set[tuple] = set()
    for text in texts:
        for figure in extract_figures(text):
            keys.add((figure.kind, *figure.value))
            if figure.kind != "reference":
                keys.add(("count", figure.value[0]))
        for match in re.finditer(_NUMBER, text, re.IGNORECASE):
            keys.add(("count", number_value(match.group(0))))
    for unit in units:  # "s19", "s18.1", "sch6-art31": a passage names its own section or article
        keys.update(("reference", number) for number in re.findall(r"(?:^s|art)(\d+(?:\.\d+)*)", unit))
    return keys


def check_figures(answer: str, grounding: Iterable[str], units: Iterable[str] = ()) -> list[FigureFinding]:
    """The figures of `answer` that no grounding text (passages, the passenger's messages) states."""
    keys = _grounding_keys(grounding, units)
    return [FigureFinding(figure) for figure in extract_figures(answer) if (figure.kind, *figure.value) not in keys]
