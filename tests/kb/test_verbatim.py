"""The unit-complete check: a shown passage is its unit's whole text, at ingest and as `python -m eval audit`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from langchain_text_splitters import HTMLSectionSplitter

import ingest.build
from ingest.__main__ import main as ingest_main
from ingest.web_pages import page_passages
from kb.sources import SavedPage
from kb.store import SOURCES_DIR, current_generation
from kb.verbatim import VerbatimError, check_parts, check_passages, check_unit
from testing.unit_changes import mutations, whole

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "site"


def test_the_whole_unit_passes_and_each_change_fails(law_passages):
    s19 = whole(law_passages, "SOR-2019-150", "en", "s19")
    s20 = whole(law_passages, "SOR-2019-150", "en", "s20")
    assert check_unit(s19, s19.text, SOURCES_DIR) is None
    assert check_unit(s19, " ".join(s19.text.split()), SOURCES_DIR) is None  # spacing and line breaks may differ
    reasons = {name: check_unit(s19, text, SOURCES_DIR) for name, text in mutations(s19.text, s20.text).items()}
    assert all(reasons.values()), reasons
    assert reasons["a line removed"].startswith("left out “(i) $400")
    assert reasons["a line of another unit appended"].startswith("not in the unit: “20 (1)")
    assert reasons["two words glued"].startswith("“mustprovide” instead of “must provide”")
    assert reasons["a word changed"].startswith("“$4,000,” instead of “$400,”")


def test_every_part_must_be_the_laws_part_and_exactly_its_slice(law_passages):
    s19 = whole(law_passages, "SOR-2019-150", "en", "s19")
    assert check_parts(s19, SOURCES_DIR) is None
    ii = next(i for i, part in enumerate(s19.parts) if part.label == "(1)(a)(ii)")
    changes = {
        "moved": replace(s19.parts[ii], start=s19.parts[ii].start + 1),
        "relabelled": replace(s19.parts[ii], label="(1)(a)(iv)"),
        "reworded": replace(s19.parts[ii], text=s19.parts[ii].text.replace("$700", "$7,000")),
    }
    reasons = {name: check_parts(replace(s19, parts=(*s19.parts[:ii], part, *s19.parts[ii + 1 :])), SOURCES_DIR)
               for name, part in changes.items()}  # fmt: skip
    assert reasons["moved"] == "part (1)(a)(ii) is not its slice of the text"
    assert reasons["relabelled"].startswith("its parts are not the law's: missing ['(1)(a)(ii)']")
    assert reasons["reworded"] == "part (1)(a)(ii) is not its slice of the text"
    assert check_parts(replace(s19, parts=s19.parts[1:]), SOURCES_DIR).startswith("its parts are not the law's")


def test_a_build_with_a_passage_that_is_not_its_unit_is_never_switched_to(tmp_path, monkeypatch, capsys):
    real = ingest.build.load_passages

    def with_one_glued(sources_dir):
        passages = real(sources_dir)
        index = next(i for i, p in enumerate(passages) if (p.doc, p.lang, p.unit) == ("SOR-2019-150", "en", "s19"))
        passages[index] = replace(passages[index], text=passages[index].text.replace("must provide", "mustprovide"))
        return passages

    monkeypatch.setattr(ingest.build, "load_passages", with_one_glued)
    with pytest.raises(VerbatimError, match=r"SOR-2019-150\|en\|s19: “mustprovide”"):
        ingest.build.build_knowledge_base(SOURCES_DIR, tmp_path / "store")
    assert current_generation(tmp_path / "store") is None and not list(tmp_path.glob("store/gen-*"))
    assert ingest_main(["--store", str(tmp_path / "store"), "--quiet"]) == 1
    assert "SOR-2019-150|en|s19" in capsys.readouterr().err


def test_every_fixture_page_splits_into_its_sections_word_for_word():
    for path in sorted(FIXTURES.glob("*.html")):
        page = SavedPage(f"https://guide.test/{path.stem}", f"https://guide.test/{path.stem}", path.stem, path.name, "")
        try:
            passages = page_passages(page, path.read_bytes(), path.name)
        except Exception:  # noqa: BLE001 - a page the loader refuses shows nothing, so it cannot misquote
            continue
        assert passages and check_passages(passages, FIXTURES) == [], path.name


def test_the_splitter_alone_would_break_a_sentence_at_a_link():
    """Why the content is made plain before HTMLSectionSplitter reads it: it joins strings with spaces."""
    html = (FIXTURES / "complaints.html").read_text(encoding="utf-8")
    documents = HTMLSectionSplitter(headers_to_split_on=[(h, h) for h in ("h1", "h2", "h3")]).split_text(html)
    assert any("Agency ." in " ".join(document.page_content.split()) for document in documents)
    page = SavedPage("https://guide.test/complaints", "https://guide.test/complaints", "c", "complaints.html", "")
    steps = next(p for p in page_passages(page, html.encode(), "complaints.html") if p.unit == "steps")
    assert "file a complaint with the Agency." in steps.text
