"""The question bank: for each unit of law, how passengers talk about what it governs.

Each entry is a question or a short situation, written from the unit's own text (never from an item that
measures retrieval), or a volunteer-reviewed passenger question accepted by a maintainer on the review page (kept
in the log's database, never in these files). Entries are matched against a passenger's question and point to
their unit; they are never shown to a passenger as law.

The bank is reviewable data: `kb/bank/*.jsonl`, one record a line, `{"doc", "unit", "lang", "text"}`, and
optionally "part": the label path of the part of the unit the entry is about (`(1)(a)(ii)`), written from the
law like the entry, which helps point a passenger to that part. Like the questions of `kb/bank/outside/`, it
reaches the page only through `python -m ingest`, which embeds it into the next generation.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from foundation.text import LANGUAGES, squash_spaces
from kb.jsonl import json_lines

BANK_DIR = Path(__file__).resolve().parent / "bank"
OUTSIDE_DIR = BANK_DIR / "outside"  # air-travel questions that no unit answers: `{"lang", "text"}` a line
MAX_ENTRY_CHARS = 700


@dataclass(frozen=True)
class BankEntry:
    doc: str
    unit: str
    lang: str
    text: str
    part: str = ""

    @property
    def id(self) -> str:
        return "bank|" + hashlib.sha256(f"{self.doc}|{self.unit}|{self.lang}|{self.text}".encode()).hexdigest()[:24]

    def to_record(self) -> dict:
        record = {"doc": self.doc, "unit": self.unit, "lang": self.lang, "text": self.text}
        return {**record, "part": self.part} if self.part else record


@dataclass(frozen=True)
class BankProblem:
    """A line that was left out, and why: shown to the maintainer who runs ingest."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


def parse_entry(record: object, known_units: set[tuple[str, str]]) -> tuple[BankEntry | None, str]:
    """An entry, or None and the reason it is refused."""
    if not isinstance(record, dict):
        return None, "not a JSON object"
    missing = [key for key in ("doc", "unit", "lang", "text") if not isinstance(record.get(key), str)]
    if missing:
        return None, f"missing or non-text field(s): {', '.join(missing)}"
    text = squash_spaces(record["text"])
    if not text:
        return None, "empty text"
    if len(text) > MAX_ENTRY_CHARS:
        return None, f"text longer than {MAX_ENTRY_CHARS} characters"
    if record["lang"] not in LANGUAGES:
        return None, f"language {record['lang']!r} is not one of {', '.join(LANGUAGES)}"
    if (record["doc"], record["unit"]) not in known_units:
        return None, f"unknown unit {record['doc']} {record['unit']}: no such unit in the knowledge base"
    part = record.get("part", "")
    if not isinstance(part, str):
        return None, "the part is not a label path such as (1)(a)(ii)"
    return BankEntry(record["doc"], record["unit"], record["lang"], text, squash_spaces(part)), ""


def load_bank(
    known_units: set[tuple[str, str]], bank_dir: Path = BANK_DIR
) -> tuple[list[BankEntry], list[BankProblem]]:
    """Every valid entry of every bank file, in file and line order, without duplicates; refused lines named.

    Entries for an instrument the knowledge base does not hold are left out silently (a build from part of
    the snapshot); an entry naming a unit its instrument does not have is refused.
    """
    known_docs = {doc for doc, _ in known_units}
    entries: list[BankEntry] = []
    problems: list[BankProblem] = []
    seen: set[str] = set()
    for path in sorted(bank_dir.glob("*.jsonl")):
        for line in json_lines(path, errors="replace"):
            if line.error:
                problems.append(BankProblem(path.name, line.number, f"not valid JSON ({line.error})"))
                continue
            record = line.value
            if isinstance(record, dict) and record.get("doc") not in known_docs:
                continue  # an instrument this snapshot does not hold: nothing wrong with the line
            entry, reason = parse_entry(record, known_units)
            if entry is None:
                problems.append(BankProblem(path.name, line.number, reason))
            elif entry.id not in seen:
                seen.add(entry.id)
                entries.append(entry)
    return entries, problems


def load_outside(directory: Path = OUTSIDE_DIR) -> list[str]:
    """Questions about flying that none of these laws governs (terminals, pets, loyalty points...): a question
    nearer to one of them than to any bank entry is not shown law. Unreadable lines are skipped."""
    texts = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in json_lines(path, errors="replace"):
            record = line.value
            if isinstance(record, dict) and isinstance(record.get("text"), str) and record["text"].strip():
                texts.append(squash_spaces(record["text"]))
    return texts
