"""How crawled pages are kept: each page's HTML copied unchanged, a manifest beside them, swapped in whole."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ingest.laws import SourceError, read_json_object

MANIFEST = "manifest.json"
TERMS_NOTE = "see the site's terms of use"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class SavedPage:
    """One manifest entry; `file` is relative to the snapshot directory."""

    url: str
    canonical_url: str
    title: str
    file: str
    retrieved: str
    terms: str = TERMS_NOTE


PAGE_FIELDS = ("url", "canonical_url", "title", "file", "retrieved")


def page_file(url: str, taken: set[str]) -> str:
    """`<host>/<slug>.html` for a page URL, made unique among the files already `taken` (and added to them)."""
    parts = urlsplit(url)
    host = _UNSAFE.sub("_", parts.netloc.lower())
    slug = _UNSAFE.sub("-", re.sub(r"\.html?$", "", parts.path.strip("/"))).strip("-") or "index"
    if parts.query:
        slug += "-" + hashlib.sha1(parts.query.encode()).hexdigest()[:8]
    name, number = f"{host}/{slug}.html", 1
    while name in taken:
        number += 1
        name = f"{host}/{slug}-{number}.html"
    taken.add(name)
    return name


def write_manifest(snapshot_dir: Path, pages: list[SavedPage]) -> None:
    manifest = {"pages": [asdict(page) for page in pages]}
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (snapshot_dir / MANIFEST).write_text(text, encoding="utf-8")


def read_manifest(snapshot_dir: Path) -> list[SavedPage]:
    """The saved pages; SourceError naming the manifest and the entry at fault when it cannot be trusted."""
    path = snapshot_dir / MANIFEST
    entries = read_json_object(path).get("pages")
    if not isinstance(entries, list):
        raise SourceError(f'{path} has no list of "pages".')
    pages = []
    for number, entry in enumerate(entries, start=1):
        fields = entry if isinstance(entry, dict) else {}
        missing = [name for name in PAGE_FIELDS if not isinstance(fields.get(name), str)]
        if missing:
            raise SourceError(f"{path}: page {number} has no text for {', '.join(missing)}.")
        file = PurePosixPath(fields["file"])
        if file.is_absolute() or ".." in file.parts:
            raise SourceError(f"{path}: page {number} names a file outside the snapshot ({fields['file']}).")
        pages.append(SavedPage(**{name: fields[name] for name in PAGE_FIELDS}, terms=fields.get("terms", TERMS_NOTE)))
    return pages


def replace_snapshot(staging: Path, snapshot_dir: Path) -> None:
    """Put a complete new snapshot in place of the old one with two renames, never a half-written directory."""
    retired = staging.with_name(staging.name + "-retired")
    if snapshot_dir.exists():
        snapshot_dir.rename(retired)
    staging.rename(snapshot_dir)
    shutil.rmtree(retired, ignore_errors=True)
