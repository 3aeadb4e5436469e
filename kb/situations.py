"""Situations the law distinguishes, each with the units it engages: reviewable data, loaded and checked once.

`kb/situations/situations.json` lists scenarios written from the law's side (a delay by its cause, a bag lost,
damaged or delayed, a passenger bumped, a tarmac delay...), each with the units a volunteer would show for it, in
order, each unit's role (obligation, compensation table, definition, limit, deadline, who is responsible...) and,
where the unit governs only domestic or only international flights, its reach. A situation holds for a text (or a
question and the message it was asked in, told together) when every group of its `when` patterns matches the folded
text and none of its `unless` patterns does, and, where the situation itself has a reach (the Convention's delay
article: international carriage only), when the flight told is of that reach (the search reads it from the dialogue,
knowing every place and airport abroad); a pattern (of `when`, `unless` or `needs`) may name a piece the file's
`words` spell once ("{disrupted}": the words of a delay or a cancellation that many situations share). `needs` are
what an ask asks for (money, a refund, a deadline...): a unit whose role is what the ask needs counts as first of
its situation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from foundation.text import fold
from kb.passage import UnitId

SITUATIONS_FILE = Path(__file__).resolve().parent / "situations" / "situations.json"
_NAMED = re.compile(r"\{([a-z_]+)\}")


class SituationsError(ValueError):
    """The situations file cannot be used; the message names the entry and what is wrong."""


REACHES = ("domestic", "international")


@dataclass(frozen=True)
class Engaged:
    """A unit a situation engages, in a role; `reach` when the unit governs only domestic or only international
    flights (a domestic carrier's tariff answers to the Act, an international one to the Regulations)."""

    unit: UnitId
    role: str
    reach: str | None = None


@dataclass(frozen=True)
class Situation:
    id: str
    about: str
    when: tuple[re.Pattern[str], ...]
    unless: tuple[re.Pattern[str], ...]
    units: tuple[Engaged, ...]
    reach: str | None = None

    def holds(self, texts: tuple[str, ...], reach: str | None = None) -> bool:
        """Whether the situation holds for `texts` told together (each already folded, `foundation.text.fold`):
        each group of its `when` patterns matches one of them and no `unless` pattern matches any, for a flight of
        `reach` (None: not told)."""
        if self.reach and reach != self.reach:
            return False
        return all(any(_found(p, text) for text in texts) for p in self.when) and not any(
            _found(p, text) for p in self.unless for text in texts
        )


@lru_cache(maxsize=256)
def _matches(folded: str) -> dict[re.Pattern[str], bool]:
    """Which patterns a folded text matched, filled in as they are tried: each question of a message is matched
    beside the message's own text, which is then searched once for all of them, not once per question."""
    return {}


def _found(pattern: re.Pattern[str], folded: str) -> bool:
    matched = _matches(folded)
    if pattern not in matched:
        matched[pattern] = pattern.search(folded) is not None
    return matched[pattern]


@dataclass(frozen=True)
class Situations:
    roles: frozenset[str]
    needs: dict[str, re.Pattern[str]]
    situations: tuple[Situation, ...]

    def holding(self, text: str, context: str = "", reach: str | None = None, beside: str = "") -> list[Situation]:
        """The situations `text` describes, alone or with the message it was asked in (`beside`: a question's facts
        and the story's other sentences tell one situation together), of a flight of `reach` when told; with
        `context` (the rest of a dialogue), also those the two describe together when `text` or `beside` names a
        piece of them (a follow-up "what about the stroller?" after a story of a bent frame), but not one the context
        alone describes (a question about a dog after a cancellation)."""
        told = (fold(text), fold(beside)) if beside else (fold(text),)
        together = (*told, fold(context)) if context else told
        return [
            situation
            for situation in self.situations
            if situation.holds(told, reach)
            or (
                context
                and situation.holds(together, reach)
                and any(_found(p, folded) for p in situation.when for folded in told)
            )
        ]

    def needed(self, text: str) -> set[str]:
        """The roles an ask asks for: "how much" needs a compensation table, "by when" a deadline."""
        folded = fold(text)
        return {role for role, pattern in self.needs.items() if pattern.search(folded)}

    @property
    def units(self) -> set[UnitId]:
        return {engaged.unit for situation in self.situations for engaged in situation.units}


def _patterns(where: str, group: object) -> re.Pattern[str]:
    if not isinstance(group, list) or not group or not all(isinstance(p, str) for p in group):
        raise SituationsError(f"{where}: a pattern group must be a non-empty list of strings")
    try:
        return re.compile("|".join(f"(?:{p})" for p in group))
    except re.error as error:
        raise SituationsError(f"{where}: {error}") from error


def _named(where: str, group: object, words: dict[str, str]) -> object:
    """A pattern group with its {named} pieces (the file's `words`) written out; regex counts such as {0,3} stay."""
    if not isinstance(group, list):
        return group
    for pattern in group:
        for name in _NAMED.findall(pattern) if isinstance(pattern, str) else []:
            if name not in words:
                raise SituationsError(f"{where}: no `words` entry named {{{name}}}")
    return [_NAMED.sub(lambda m: words[m.group(1)], p) if isinstance(p, str) else p for p in group]


def parse_situations(data: object) -> Situations:
    """The situations of a parsed file, or SituationsError naming the first thing wrong."""
    if not isinstance(data, dict):
        raise SituationsError("the file must hold one JSON object")
    roles = data.get("roles")
    needs = data.get("needs")
    entries = data.get("situations")
    if not isinstance(roles, dict) or not isinstance(needs, dict) or not isinstance(entries, list):
        raise SituationsError("the file needs `roles` and `needs` objects and a `situations` list")
    unknown_needs = set(needs) - set(roles)
    if unknown_needs:
        raise SituationsError(f"needs name unknown roles: {', '.join(sorted(unknown_needs))}")
    words = data.get("words", {})
    if not isinstance(words, dict) or not all(isinstance(v, str) for v in words.values()):
        raise SituationsError("`words` must map names to pattern pieces")
    need_patterns = {
        role: _patterns(f"need {role}", _named(f"need {role}", [pattern], words)) for role, pattern in needs.items()
    }
    situations, seen = [], set()
    for position, entry in enumerate(entries):
        where = f"situation {position}"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise SituationsError(f"{where}: needs an `id`")
        where = f"situation {entry['id']}"
        if entry["id"] in seen:
            raise SituationsError(f"{where}: the id is used twice")
        seen.add(entry["id"])
        units = []
        for engaged in entry.get("units") or []:
            if not (isinstance(engaged, list) and len(engaged) in (3, 4) and all(isinstance(v, str) for v in engaged)):
                raise SituationsError(f"{where}: each unit is [doc, unit, role] or [doc, unit, role, reach]")
            if engaged[2] not in roles:
                raise SituationsError(f"{where}: unknown role {engaged[2]!r}")
            if engaged[3:] and engaged[3] not in REACHES:
                raise SituationsError(f"{where}: a unit's reach is one of {', '.join(REACHES)}, not {engaged[3]!r}")
            units.append(Engaged(UnitId(engaged[0], engaged[1]), engaged[2], *engaged[3:]))
        if not units or not entry.get("when"):
            raise SituationsError(f"{where}: needs `when` patterns and at least one unit")
        if entry.get("reach") not in (None, *REACHES):
            raise SituationsError(f"{where}: a situation's reach is one of {', '.join(REACHES)}")
        situations.append(
            Situation(
                entry["id"],
                str(entry.get("about", "")),
                tuple(_patterns(f"{where} when", _named(where, group, words)) for group in entry["when"]),
                tuple(_patterns(f"{where} unless", _named(where, [p], words)) for p in entry.get("unless", [])),
                tuple(units),
                entry.get("reach"),
            )
        )
    return Situations(frozenset(roles), need_patterns, tuple(situations))


@cache
def load_situations(path: Path = SITUATIONS_FILE) -> Situations:
    """The shipped situations, read and checked once per process."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise SituationsError(f"{path}: {error}") from error
    return parse_situations(data)
