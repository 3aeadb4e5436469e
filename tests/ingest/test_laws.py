"""The law loader: units as the evaluation set defines them, only text in force, every passage verbatim."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ingest.laws import load_law_passages, section_unit
from kb.law_xml import roman_or_arabic
from kb.sources import SourceError, read_sources
from kb.store import SOURCES_DIR
from kb.verbatim import check_passages
from testing.unit_changes import whole

# every unit the dev set's gold labels name, and a few more passengers need
DEV_GOLD_UNITS = [
    ("C-10.4", "s172.1"), ("C-10.4", "s85.01"), ("C-10.4", "s85.04"), ("C-10.4", "s85.07"),
    ("C-26", "sch6-art17"), ("C-26", "sch6-art22"), ("C-26", "sch6-art31"), ("SOR-2019-150", "s1"),
    ("SOR-2019-150", "s10"), ("SOR-2019-150", "s11"), ("SOR-2019-150", "s12"), ("SOR-2019-150", "s13"),
    ("SOR-2019-150", "s14"), ("SOR-2019-150", "s15"), ("SOR-2019-150", "s16"), ("SOR-2019-150", "s17"),
    ("SOR-2019-150", "s18"), ("SOR-2019-150", "s18.1"), ("SOR-2019-150", "s18.2"), ("SOR-2019-150", "s19"),
    ("SOR-2019-150", "s20"), ("SOR-2019-150", "s21"), ("SOR-2019-150", "s22"), ("SOR-2019-150", "s23"),
    ("SOR-2019-150", "s24"), ("SOR-2019-150", "s8"), ("SOR-2019-150", "s9"), ("SOR-2019-244", "s32"),
    ("SOR-2019-244", "s35"), ("SOR-2019-244", "s51"), ("SOR-2019-244", "s61"), ("C-26", "sch6-art19"),
    ("C-26", "sch6-art35"), ("SOR-88-58", "s122"), ("SOR-2019-150", "sch"),
]  # fmt: skip


@pytest.fixture(scope="module")
def passages():
    return load_law_passages(SOURCES_DIR)


ARTICLE = re.compile(r"^Article\s+([0-9]+|[IVXLC]+|premier|Premier)\b")


def heading_text(group: ET.Element) -> str:
    heading = group.find("GroupHeading")
    return " ".join("".join(heading.itertext()).split()) if heading is not None else ""


def schedule_number(schedule: ET.Element) -> str:
    label = schedule.find("ScheduleFormHeading/Label")
    if label is None:
        return ""
    match = re.match(r"^(?:SCHEDULE|ANNEXE)\s+([0-9]+|[IVXLC]+)\b", " ".join("".join(label.itertext()).split()))
    return str(roman_or_arabic(match.group(1))) if match else ""


def unit_elements(root: ET.Element, unit: str) -> list[ET.Element]:
    """The XML elements a unit id names, found from the XML structure alone, as the evaluation set defines them."""
    if unit == "preamble":
        return [e for e in root if e.tag in ("Order", "Introduction")]
    if unit == "relprov":
        return [s for s in root.findall("Schedule") if s.get("id") == "RelatedProvs"]
    if unit.startswith("sch"):
        number, _, rest = unit[3:].partition("-")
        schedules = [s for s in root.findall("Schedule") if schedule_number(s) == number and s.get("id") is None]
        if not rest or rest in ("preamble", "final", "addprot"):
            return schedules
        article = int(rest.removeprefix("art"))
        return [
            group
            for schedule in schedules
            for group in schedule.iter("Group")
            if (m := ARTICLE.match(heading_text(group))) and roman_or_arabic(m.group(1)) == article
        ]
    return [s for s in root.find("Body").findall("Section") if section_unit(s) == unit]


def test_every_unit_is_its_whole_in_force_text(passages):
    assert check_passages(passages, SOURCES_DIR) == []


def test_parts_are_the_laws_own_divisions_each_exactly_its_slice(passages):
    s19 = whole(passages, "SOR-2019-150", "en", "s19")
    assert [part.label for part in s19.parts] == [
        "(1)", "(1)(a)", "(1)(a)(i)", "(1)(a)(ii)", "(1)(a)(iii)", "(1)(b)", "(1)(b)(i)", "(1)(b)(ii)", "(1)(b)(iii)",
        "(2)", "(2)(a)", "(2)(b)", "(3)", "(4)",
    ]  # fmt: skip
    ii = next(part for part in s19.parts if part.label == "(1)(a)(ii)")
    assert ii.text.startswith("(ii) $700, if the arrival") and ii.text.endswith("but less than nine hours, or")
    french_s1 = whole(passages, "SOR-2019-150", "fr", "s1")
    large = next(part for part in french_s1.parts if part.label == '(2)"large carrier"')
    assert large.text.startswith("gros transporteur Transporteur qui a transporté")
    montreal = whole(passages, "C-26", "en", "sch6-art22")
    assert [part.label for part in montreal.parts][:2] == ["(1)", "(2)"]
    for passage in passages:
        for part in passage.parts:
            assert passage.text[part.start : part.end] == part.text


def whole_units(passages) -> dict[tuple[str, str, str], str]:
    parts = sorted(passages, key=lambda p: p.part)
    units: dict[tuple[str, str, str], str] = {}
    for p in parts:
        units[(p.doc, p.lang, p.unit)] = (
            f"{units[(p.doc, p.lang, p.unit)]}\n{p.text}" if (p.doc, p.lang, p.unit) in units else p.text
        )
    return units


def test_treaty_preambles_beside_the_treaty_text_and_label_only_headings_are_kept(passages):
    by_unit = whole_units(passages)
    assert "THE GOVERNMENTS UNDERSIGNED" in by_unit[("C-26", "en", "sch4-preamble")]
    assert by_unit[("C-26", "en", "sch1-art2")].startswith("Article 2\n(1)")
    assert (
        "Agreements entered into prior to the coming into force of section 44" in by_unit[("C-10.4", "en", "relprov")]
    )


def test_words_split_by_markup_stay_apart(passages):
    by_unit = whole_units(passages)
    assert "(4)c) s’appliquent" in by_unit[("SOR-2019-150", "fr", "s17")]
    assert "Scott Streiner Chairperson" in by_unit[("SOR-2019-150", "en", "preamble")]


def test_every_stored_passage_resolves_to_exactly_one_element(knowledge_base):
    roots = {}
    for passage in knowledge_base.passages:
        root = roots.setdefault(passage.source, ET.parse(SOURCES_DIR / passage.source).getroot())
        assert len(unit_elements(root, passage.unit)) == 1, passage.id


def test_units_passengers_need_are_in_the_store(knowledge_base):
    stored = {(p.doc, p.unit) for p in knowledge_base.passages}
    assert [unit for unit in DEV_GOLD_UNITS if unit not in stored] == []


def test_french_files_use_english_doc_ids_and_the_french_site(passages):
    french = [p for p in passages if p.lang == "fr"]
    assert {p.doc for p in french} == {"SOR-2019-150", "C-26"}
    s19 = next(p for p in french if p.unit == "s19")
    assert s19.url == "https://laws-lois.justice.gc.ca/fra/reglements/DORS-2019-150/article-19.html"


def test_section_passage_reads_like_the_official_page(passages):
    parts = [p for p in passages if p.doc == "SOR-2019-150" and p.lang == "en" and p.unit == "s19"]
    text = "\n".join(p.text for p in sorted(parts, key=lambda p: p.part))
    assert text.startswith("19 (1) If paragraph 12(2)(d) or (3)(d) applies to a carrier")
    assert "(i) $400, if the arrival" in text
    assert "Deadline to file request\n(3) To receive the minimum compensation" in text
    assert "SOR/2022-134" not in text  # historical note left out
    assert parts[0].title == "Compensation for delay or cancellation"
    assert parts[0].url == "https://laws-lois.justice.gc.ca/eng/regulations/SOR-2019-150/section-19.html"
    assert parts[0].heading_path == ("Delay, Cancellation and Denial of Boarding",)


def test_treaty_articles_are_units_of_their_schedule(passages):
    article = next(p for p in passages if p.doc == "C-26" and p.lang == "en" and p.unit == "sch6-art31")
    assert article.title == "Article 31 — Timely Notice of Complaints"
    assert "within seven days from the date of receipt in the case of checked baggage" in article.text
    warsaw = next(p for p in passages if p.doc == "C-26" and p.lang == "en" and p.unit == "sch1-art31")
    assert warsaw.text != article.text


def test_repealed_and_not_in_force_text_is_left_out(passages):
    assert not any("[Repealed" in p.text for p in passages if p.unit != "sch")
    assert not any(p.unit == "nif" for p in passages)


def test_long_sections_are_split_only_between_subsections(passages):
    parts = [p for p in passages if p.part > 0]
    assert parts
    for part in parts:
        assert part.text.splitlines()[0].startswith("(") or not part.text[0].isdigit()


def test_malformed_xml_is_skipped_with_a_named_warning(tmp_path):
    shutil.copytree(SOURCES_DIR / "justice-laws", tmp_path / "justice-laws")
    shutil.copy(SOURCES_DIR / "manifest.json", tmp_path / "manifest.json")
    (tmp_path / "justice-laws/eng/regulations/SOR-2019-110.xml").write_text("<Regulation><Body>", encoding="utf-8")
    with pytest.warns(UserWarning, match="SOR-2019-110.xml"):
        passages = load_law_passages(tmp_path)
    assert any(p.doc == "SOR-2019-150" for p in passages)
    assert not any(p.doc == "SOR-2019-110" for p in passages)


def test_missing_or_empty_sources_are_a_clear_error(tmp_path):
    with pytest.raises(SourceError, match="manifest"):
        load_law_passages(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"instruments": []}), encoding="utf-8")
    with pytest.raises(SourceError, match="no instruments"):
        load_law_passages(tmp_path)


def test_manifest_lists_every_shipped_file():
    manifest = json.loads((SOURCES_DIR / "manifest.json").read_text(encoding="utf-8"))
    listed = {entry["file"] for entry in manifest["instruments"]}
    shipped = {str(p.relative_to(SOURCES_DIR)) for p in Path(SOURCES_DIR / "justice-laws").rglob("*.xml")}
    assert listed == shipped
    assert "Open Government Licence" in manifest["licence"]["name"]


ENTRY = {"doc": "SOR-2019-110", "instrument": "Direction", "language": "en", "url": "https://example.org/",
         "file": "justice-laws/eng/regulations/SOR-2019-110.xml", "consolidated": "2025-07-24"}  # fmt: skip
BAD_MANIFESTS = {
    "not JSON": ('{"instruments": [', "is not valid JSON"),
    "a list": ("[]", "must hold a JSON object, not a list"),
    "instruments not a list": ('{"instruments": {"a": 1}}', 'has no list of "instruments"'),
    "instrument without a file": (
        json.dumps({"instruments": [{k: v for k, v in ENTRY.items() if k != "file"}]}),
        "instrument 1 has no text for file",
    ),
    "instrument that is a number": ('{"instruments": [7]}', "instrument 1 has no text for doc"),
    "instrument in another language": (
        json.dumps({"instruments": [{**ENTRY, "language": "de"}]}),
        "only en and fr are read",
    ),
}


@pytest.mark.parametrize("kind", BAD_MANIFESTS)
def test_a_bad_manifest_is_an_error_naming_the_file_and_the_problem(tmp_path, kind):
    text, problem = BAD_MANIFESTS[kind]
    (tmp_path / "manifest.json").write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as raised:
        load_law_passages(tmp_path)
    assert str(tmp_path / "manifest.json") in str(raised.value) and problem in str(raised.value)


def test_a_manifest_without_a_licence_is_an_error_naming_it(tmp_path):
    manifest = json.loads((SOURCES_DIR / "manifest.json").read_text(encoding="utf-8"))
    del manifest["licence"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SourceError, match='manifest.json has no "licence"'):
        read_sources(tmp_path)


def test_xml_of_another_structure_is_named_in_a_warning(tmp_path):
    shutil.copytree(SOURCES_DIR / "justice-laws", tmp_path / "justice-laws")
    shutil.copy(SOURCES_DIR / "manifest.json", tmp_path / "manifest.json")
    catalog = "<?xml version='1.0'?><catalog><book><title>Not law</title></book></catalog>"
    (tmp_path / "justice-laws/eng/regulations/SOR-2019-110.xml").write_text(catalog, encoding="utf-8")
    with pytest.warns(UserWarning, match="SOR-2019-110.xml yielded no passages: its root element <catalog>"):
        passages = load_law_passages(tmp_path)
    assert passages and not any(p.doc == "SOR-2019-110" for p in passages)
