"""The text each index sees for a passage: the passage plus where it sits, never shown to anyone."""

from __future__ import annotations

from kb.passage import Passage


def index_text(passage: Passage) -> str:
    return "\n".join((passage.title, " ".join(passage.heading_path), passage.text))
