"""Guide pages saved into a snapshot directory as a crawl saves them, for tests and hostile-input scenarios."""

from __future__ import annotations

from pathlib import Path

from kb.sources import SavedPage, write_pages


def save_example_pages(web: Path, pages: dict[str, bytes]) -> None:
    """These files saved under example.org in the snapshot directory `web`, listed in its manifest as a crawl
    lists them."""
    (web / "example.org").mkdir(parents=True)
    saved = []
    for name, content in pages.items():
        (web / "example.org" / name).write_bytes(content)
        url = f"https://example.org/{name}"
        saved.append(SavedPage(url, url, name, f"example.org/{name}", "2026-01-01T00:00:00+00:00"))
    write_pages(web, saved)
