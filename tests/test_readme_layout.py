"""The README's layout table is the map a newcomer reads first: it names every package, and everything it names
exists."""

from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def section(title: str) -> str:
    readme = PROJECT.joinpath("README.md").read_text(encoding="utf-8")
    start = readme.index(f"### {title}\n")
    ends = [readme.find(heading, start + 1) for heading in ("\n### ", "\n## ")]
    return readme[start : min(end for end in ends if end > 0)]


def first_cells(table: str) -> list[str]:
    return [match.group(1) for match in re.finditer(r"^\| `([^`]+)` \|", table, re.MULTILINE)]


def test_the_layout_table_names_every_package_and_nothing_else():
    named = set(first_cells(section("Layout")))
    packages = {f"{path.parent.name}/" for path in PROJECT.glob("*/__init__.py")} | {"tests/", "app.py"}
    assert named == packages


def test_every_module_the_tables_name_exists():
    missing = []
    for table in (section("Layout"), section("Inside each package")):
        for row in re.finditer(r"^\| (.+?) \|", table, re.MULTILINE):
            paths = re.findall(r"`([^`]+)`", row.group(1))
            folder = ""
            for path in paths:
                folder = path.rsplit("/", 1)[0] + "/" if "/" in path else folder
                full = path if "/" in path else folder + path
                if not (PROJECT / full).exists():
                    missing.append(full)
    assert missing == []
