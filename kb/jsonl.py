"""JSON Lines, the format of the question bank, the store's records and every evaluation set: one value a line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class JsonLine:
    """A non-blank line of a file: its number (from 1, blank lines counted) and its value, or why it is not JSON."""

    number: int
    value: object = None
    error: str = ""


def json_lines(path: Path, errors: str = "strict") -> list[JsonLine]:
    """Every non-blank line of `path`, parsed, so that a caller can name each line that is not JSON.

    Lines end at line feeds only: text written with `ensure_ascii=False` may hold a line or paragraph separator
    (U+2028, U+2029, U+0085) inside a string. `errors="replace"` reads a file whose bytes are not all UTF-8
    (a hand-edited bank file) rather than failing.
    """
    lines = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors=errors).split("\n"), 1):
        if line.strip():
            try:
                lines.append(JsonLine(number, json.loads(line)))
            except json.JSONDecodeError as error:
                lines.append(JsonLine(number, error=error.msg))
    return lines


def read_jsonl(path: Path) -> list:
    """Every value of `path`; a line that is not JSON raises ValueError naming the file and the line."""
    values = []
    for line in json_lines(path):
        if line.error:
            raise ValueError(f"{path} line {line.number} is not valid JSON ({line.error})")
        values.append(line.value)
    return values
