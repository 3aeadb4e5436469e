"""Reading a file the evaluator fits and the product ships (the ranker, the coverage model of words, the map of
stories' words): a damaged one stops the product with what is wrong and the command that writes it again, rather
than searching without it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

Fitted = TypeVar("Fitted")


def read_json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def read_fitted(
    path: Path,
    parse: Callable[[object], Fitted],
    error: type[ValueError],
    command: str,
    read: Callable[[Path], object] = read_json,
) -> Fitted:
    """The parsed file, or `error` naming the file, what is wrong and `command`; `read` raises `error`, OSError or
    ValueError (a JSON file's syntax) for a file it cannot read."""
    try:
        return parse(read(path))
    except (OSError, ValueError) as problem:
        raise error(f"{path}: {problem}; `{command}` rewrites it") from problem
