"""The shipped sources' manifests as typed objects, each read here and nowhere else.

`kb/sources/manifest.json` lists the law snapshot (each instrument's file, official URL and consolidation
date) and its licence; `kb/sources/web/manifest.json` lists the guide pages a crawl saved. A build keeps
what both say (`Sources`) in the generation's meta.json, where the page reads it for its status panel.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from foundation.text import LANGUAGES

MANIFEST = "manifest.json"
WEB_DIR = "web"  # the crawl snapshot, beside the law in the sources directory
TERMS_NOTE = "see the site's terms of use"
INSTRUMENT_FIELDS = ("doc", "instrument", "language", "file", "url", "consolidated")
LICENCE_FIELDS = ("name", "url", "attribution")
PAGE_FIELDS = ("url", "canonical_url", "title", "file", "retrieved")


class SourceError(Exception):
    """The snapshot is missing, empty or described wrongly: nothing sensible can be built from it."""


@dataclass(frozen=True)
class Instrument:
    """One shipped XML file of law and what the manifest says of it."""

    doc: str
    instrument: str
    lang: str
    file: str
    url: str
    consolidated: str

    def to_record(self) -> dict:
        """The manifest's own entry, which calls the language `language`."""
        values = (self.doc, self.instrument, self.lang, self.file, self.url, self.consolidated)
        return dict(zip(INSTRUMENT_FIELDS, values, strict=True))

    @classmethod
    def from_record(cls, record: dict) -> Instrument:
        return cls(*(record[name] for name in INSTRUMENT_FIELDS))


@dataclass(frozen=True)
class SavedPage:
    """One page a crawl saved; `file` is relative to the snapshot directory."""

    url: str
    canonical_url: str
    title: str
    file: str
    retrieved: str
    terms: str = TERMS_NOTE


@dataclass(frozen=True)
class Sources:
    """What a generation was built from, as its meta.json keeps it."""

    instruments: tuple[Instrument, ...]
    licence: Licence
    pages: tuple[SavedPage, ...] = ()

    def to_record(self) -> dict:
        return {
            "instruments": [instrument.to_record() for instrument in self.instruments],
            "licence": asdict(self.licence),
            "pages": [asdict(page) for page in self.pages],
        }

    @classmethod
    def from_record(cls, record: dict) -> Sources:
        return cls(
            tuple(Instrument.from_record(item) for item in record["instruments"]),
            Licence(**record["licence"]),
            tuple(SavedPage(**page) for page in record["pages"]),
        )


@dataclass(frozen=True)
class Licence:
    """The snapshot's licence, which the page names with a link."""

    name: str
    url: str
    attribution: str


def read_json_object(path: Path) -> dict:
    """A manifest's JSON object; SourceError naming the file and what is wrong with it otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(f"{path} cannot be read: {error}") from None
    except json.JSONDecodeError as error:
        raise SourceError(
            f"{path} is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    if not isinstance(data, dict):
        raise SourceError(f"{path} must hold a JSON object, not a {type(data).__name__}")
    return data


def read_instruments(sources_dir: Path) -> list[Instrument]:
    """The law snapshot's instruments; SourceError naming the manifest and the entry at fault."""
    manifest = sources_dir / MANIFEST
    if not manifest.is_file():
        raise SourceError(f"No manifest at {manifest}: the law snapshot is missing.")
    entries = read_json_object(manifest).get("instruments")
    if not isinstance(entries, list):
        raise SourceError(f'{manifest} has no list of "instruments".')
    if not entries:
        raise SourceError(f"{manifest} lists no instruments.")
    instruments = []
    for number, entry in enumerate(entries, start=1):
        fields = entry if isinstance(entry, dict) else {}
        missing = [name for name in INSTRUMENT_FIELDS if not isinstance(fields.get(name), str) or not fields[name]]
        if missing:
            raise SourceError(f"{manifest}: instrument {number} has no text for {', '.join(missing)}.")
        if fields["language"] not in LANGUAGES:
            raise SourceError(f"{manifest}: instrument {number} is in {fields['language']!r}; only en and fr are read.")
        instruments.append(Instrument.from_record(fields))
    return instruments


def read_pages(snapshot_dir: Path) -> list[SavedPage]:
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


def write_pages(snapshot_dir: Path, pages: list[SavedPage]) -> None:
    manifest = {"pages": [asdict(page) for page in pages]}
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (snapshot_dir / MANIFEST).write_text(text, encoding="utf-8")


def read_sources(sources_dir: Path) -> Sources:
    """Both manifests: the law's instruments and licence, and the saved pages when a crawl left a snapshot."""
    path = sources_dir / MANIFEST
    licence = read_json_object(path).get("licence")
    if not isinstance(licence, dict) or not all(isinstance(licence.get(key), str) for key in LICENCE_FIELDS):
        raise SourceError(f'{path} has no "licence" with a {", ".join(LICENCE_FIELDS)}.')
    web_dir = sources_dir / WEB_DIR
    pages = read_pages(web_dir) if (web_dir / MANIFEST).is_file() else []
    licence_fields = {key: licence[key] for key in LICENCE_FIELDS}
    return Sources(tuple(read_instruments(sources_dir)), Licence(**licence_fields), tuple(pages))
