"""Results of LLM calls kept on disk, so re-running a measurement on the same inputs costs nothing."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parent / ".cache"


class ResultCache:
    """JSON records under `directory`, one file per key; a key is hashed from everything the result depends on."""

    def __init__(self, directory: Path):
        self.directory = directory

    @staticmethod
    def key(*parts: object) -> str:
        return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:32]

    def get(self, key: str) -> dict | None:
        path = self.directory / f"{key}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put(self, key: str, record: dict) -> None:
        """Written to a temporary file first, so an interrupted run never leaves half a record."""
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(record, file, ensure_ascii=False)
        os.replace(temporary, self.directory / f"{key}.json")
