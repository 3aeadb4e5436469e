"""The question bank: loading, refusing bad lines by name, and incremental re-embedding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ingest.build import build_knowledge_base
from kb.bank import BANK_DIR, OUTSIDE_DIR, load_bank, load_outside
from kb.store import SOURCES_DIR, KnowledgeBase
from retrieval.engine import SearchEngine
from retrieval.search import search_dialogue
from review import storage
from review.log import FeedbackLog

KNOWN = {("SOR-2019-110", "s1"), ("SOR-2019-110", "s2")}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def entry(unit: str, text: str, lang: str = "en", doc: str = "SOR-2019-110") -> str:
    return json.dumps({"doc": doc, "unit": unit, "lang": lang, "text": text})


def test_valid_entries_load_and_bad_lines_are_named_with_their_line(tmp_path):
    write_lines(
        tmp_path / "bank" / "tarmac.jsonl",
        [
            entry("s1", "How long can they keep us on the plane after landing?"),
            "{not json",
            entry("s9", "An entry for a unit this knowledge base does not have"),
            json.dumps({"doc": "SOR-2019-110", "unit": "s1", "lang": "en"}),
            entry("s1", "Combien de temps peuvent-ils nous garder dans l'avion?", lang="fr"),
            entry("s1", "How long can they keep us on the plane after landing?"),
            entry("s2", "Un texte en allemand", lang="de"),
        ],
    )
    entries, problems = load_bank(KNOWN, tmp_path / "bank")
    assert [(e.unit, e.lang) for e in entries] == [("s1", "en"), ("s1", "fr")]
    assert [(p.file, p.line) for p in problems] == [("tarmac.jsonl", 2), ("tarmac.jsonl", 3), ("tarmac.jsonl", 4),
                                                    ("tarmac.jsonl", 7)]  # fmt: skip
    assert "not valid JSON" in problems[0].reason
    assert "unknown unit SOR-2019-110 s9" in problems[1].reason
    assert "text" in problems[2].reason
    assert "'de'" in problems[3].reason


def small_sources(tmp_path: Path, keep: tuple[str, ...] = ("SOR-2019-110.xml",)) -> Path:
    sources = tmp_path / "sources"
    shutil.copytree(SOURCES_DIR, sources, ignore=shutil.ignore_patterns("*.xml"))
    manifest = json.loads((sources / "manifest.json").read_text(encoding="utf-8"))
    manifest["instruments"] = [i for i in manifest["instruments"] if i["file"].endswith(keep)]
    (sources / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for instrument in manifest["instruments"]:
        target = sources / instrument["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SOURCES_DIR / instrument["file"], target)
    return sources


def test_only_changed_bank_entries_are_embedded_again(tmp_path):
    sources, store, bank = small_sources(tmp_path), tmp_path / "store", tmp_path / "bank"
    write_lines(bank / "tarmac.jsonl", [entry("s1", "Can they keep us on the tarmac for hours?"),
                                        entry("s2", "Which rule wins, the direction or the regulations?")])  # fmt: skip
    first, passages, _ = build_knowledge_base(sources, store, bank_dir=bank, shipped_vectors=None)
    assert first.embedded == len(passages) + 2

    again, _, _ = build_knowledge_base(sources, store, bank_dir=bank)
    assert again.unchanged

    write_lines(bank / "tarmac.jsonl", [entry("s1", "Can they keep us on the tarmac for hours?"),
                                        entry("s2", "Does the tarmac direction override the APPR?")])  # fmt: skip
    changed, _, _ = build_knowledge_base(sources, store, bank_dir=bank)
    assert not changed.unchanged and changed.embedded == 1
    knowledge_base = KnowledgeBase.open(store)
    assert [e.text for e in knowledge_base.bank] == [
        "Can they keep us on the tarmac for hours?",
        "Does the tarmac direction override the APPR?",
    ]
    assert knowledge_base.bank_collection.count() == 2


def test_an_out_of_scope_question_is_served_from_the_generation_only_after_ingest(tmp_path):
    sources, store, outside = small_sources(tmp_path, ("SOR-2019-110.xml",)), tmp_path / "store", tmp_path / "outside"
    shutil.copytree(OUTSIDE_DIR, outside)
    build_knowledge_base(sources, store, outside_dir=outside)
    built = KnowledgeBase.open(store)
    assert built.outside_texts == load_outside() and len(built.outside) == len(built.outside_texts)
    built.close()

    write_lines(outside / "more.jsonl", [json.dumps({"lang": "en", "text": "Can I bring my parrot on board?"})])
    reopened = KnowledgeBase.open(store)
    assert "Can I bring my parrot on board?" not in reopened.outside_texts  # nothing changes without a build
    reopened.close()
    build_knowledge_base(sources, store, outside_dir=outside)
    rebuilt = KnowledgeBase.open(store)
    assert "Can I bring my parrot on board?" in rebuilt.outside_texts
    assert len(rebuilt.outside) == len(built.outside) + 1
    rebuilt.close()


def test_every_shipped_bank_entry_names_a_unit_of_the_knowledge_base(knowledge_base):
    entries, problems = load_bank({(p.doc, p.unit) for p in knowledge_base.passages})
    assert not problems
    assert len(knowledge_base.bank) == len(entries) > 1000


def test_a_question_that_missed_its_unit_finds_it_once_a_maintainer_accepts_a_volunteers_entry(tmp_path):
    sources, store, bank = small_sources(tmp_path, ("SOR-2019-150.xml",)), tmp_path / "store", tmp_path / "bank"
    shutil.copytree(BANK_DIR, bank)
    build_knowledge_base(sources, store, bank_dir=bank)
    question = "my axe has to ride in the belly now? the gate dude said no overhead for it. Call me at 613-555-0199"
    missed = search_dialogue([question], SearchEngine(KnowledgeBase.open(store)))
    assert ("SOR-2019-150", "s24") not in {p.unit_id for p in missed.shown_passages}

    log = FeedbackLog(tmp_path / "log.sqlite3")
    turn_id, _ = log.log_turn([question], missed)
    log.add_missing_unit(turn_id, "SOR-2019-150", "s24", "a guitar is a musical instrument")
    (turn,) = log.recent_turns()
    entries = turn.bank_entries("en")
    assert [(e.doc, e.unit) for e in entries] == [("SOR-2019-150", "s24")]
    assert "613-555-0199" not in entries[0].text and "axe" in entries[0].text
    log.propose_bank_entries(entries)
    database = storage.engine_for(log.url)
    accepted = storage.accepted_bank_entries
    report, _, _ = build_knowledge_base(sources, store, bank_dir=bank, additions=accepted(database))
    assert report.unchanged, "a proposed entry waits for a maintainer"

    (waiting,) = log.bank_additions(accepted=False)
    log.accept_bank_addition(waiting.id)
    report, _, _ = build_knowledge_base(sources, store, bank_dir=bank, additions=accepted(database))
    assert report.embedded == 1  # only the new entry
    assert not list(bank.glob("volunteers*")), "nothing is written under the bank's files"
    found = search_dialogue([question], SearchEngine(KnowledgeBase.open(store)))
    assert ("SOR-2019-150", "s24") in {p.unit_id for p in found.shown_passages}
