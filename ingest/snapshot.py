"""How crawled pages are kept: each page's HTML copied unchanged, a manifest beside them (`kb.sources`), swapped in
whole."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


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


def replace_snapshot(staging: Path, snapshot_dir: Path) -> None:
    """Put a complete new snapshot in place of the old one with two renames, never a half-written directory."""
    retired = staging.with_name(staging.name + "-retired")
    if snapshot_dir.exists():
        snapshot_dir.rename(retired)
    staging.rename(snapshot_dir)
    shutil.rmtree(retired, ignore_errors=True)
