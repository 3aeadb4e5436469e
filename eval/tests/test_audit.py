"""`python -m eval audit`: the passages the product shows, held to their units' text and to gold."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval import audit
from retrieval.search import search_dialogue
from testing.unit_changes import mutations, whole

# Twenty situations, written for this test, across the kinds of trouble the page is for.
SITUATIONS = [
    "WestJet cancelled my Calgary to Toronto flight the night before because of a crew shortage. What do I get?",
    "Air Canada Montreal to Vancouver landed 7 hours late, they blamed maintenance. How much compensation?",
    "I was bumped from an overbooked Porter flight in Ottawa. What are they required to give me?",
    "We sat on the tarmac in Halifax for 3 and a half hours with no water. Is that allowed?",
    "My checked suitcase never arrived after a Flair flight to Edmonton. Who pays and how long do I have?",
    "The handle of my bag was ripped off on a Sunwing flight from Cancun to Toronto. What can I claim?",
    "Can the airline make me pay extra so my 3 year old sits next to me on a domestic flight?",
    "Air Transat refused to let me bring my violin in the cabin. What are the rules for instruments?",
    "My wheelchair was damaged by the airline on a flight from Winnipeg to Regina. What must they do?",
    "I travel with a service dog. Can WestJet charge for the extra seat?",
    "How do I complain to the Canadian Transportation Agency about an airline that ignored my claim?",
    "My flight was delayed 4 hours because of a storm. Do I get meals and a hotel?",
    "Mon vol Air Canada Québec-Paris a été annulé. À quelle indemnité ai-je droit?",
    "Mes bagages ont été perdus sur un vol Montréal-Toronto. Que dois-je faire?",
    "The airline changed my itinerary and I no longer want to travel. Can I get a refund instead?",
    "How long does the airline have to answer my compensation request?",
    "My connecting flight in Toronto was missed because the first leg was late. What do they owe me?",
    "They denied me boarding because I was late to the gate. Do I get anything?",
    "What does the Montreal Convention say about delay of baggage on an international trip?",
    "Lynx Air went out of business and cancelled my flight. Can I get my money back?",
]


def audit_args(**values) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    audit.configure(parser)
    args = parser.parse_args([])
    return argparse.Namespace(**{**vars(args), **values})


def write_records(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return path


def test_the_passages_shown_for_twenty_situations_pass_the_audit_and_each_change_fails(
    engine, law_passages, tmp_path, capsys
):
    shown = []
    for situation in SITUATIONS:
        shown += search_dialogue([situation], engine, llm_config=None).shown_passages
    records = [{"doc": p.doc, "unit": p.unit, "lang": p.lang, "text": p.text} for p in shown]
    assert len(records) >= 40 and {r["lang"] for r in records} == {"en", "fr"}
    assert audit.main(audit_args(passages=write_records(tmp_path / "shown.jsonl", records))) == 0
    assert f"{len(records)} passages checked, 0 not" in capsys.readouterr().out

    s19 = whole(law_passages, "SOR-2019-150", "en", "s19")
    s20 = whole(law_passages, "SOR-2019-150", "en", "s20")
    changed = [
        {"doc": "SOR-2019-150", "unit": "s19", "lang": "en", "text": text}
        for text in mutations(s19.text, s20.text).values()
    ]
    path = write_records(tmp_path / "changed.jsonl", [*records[:3], *changed, {"doc": "SOR-2019-150"}])
    assert audit.main(audit_args(passages=path)) == 1
    out = capsys.readouterr().out
    failing = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert [line.split(":")[0] for line in failing] == [f"FAIL line {n}" for n in range(4, 4 + len(changed) + 1)]
    assert "SOR-2019-150 s19 (en): “mustprovide” instead of “must provide”" in out
    assert "not a record: a record needs the text fields doc, unit, lang, text" in out


def test_the_product_is_audited_against_gold_without_a_language_model(store_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PASSENGER_KB_STORE", str(store_dir))
    items = [
        {"id": "a", "type": "rule", "turns": [SITUATIONS[1]], "gold": [{"doc": "SOR-2019-150", "unit": "s19"}]},
        {"id": "b", "type": "unanswerable", "turns": ["My VIA Rail train to Ottawa was 5 hours late."], "gold": []},
        {
            "id": "c",
            "type": "unanswerable",
            "turns": ["Can I bring my pet iguana to Calgary on my flight?"],
            "gold": [],
        },
    ]
    gold = write_records(tmp_path / "gold.jsonl", items)
    shown = tmp_path / "shown.jsonl"
    status = audit.main(audit_args(gold=gold, json=tmp_path / "audit.json", write_passages=shown))
    assert status == 0
    out = capsys.readouterr().out
    for figure in ("false acceptance", "false refusal", "wrong law shown as if it applied", "not their unit's text"):
        assert figure in out
    summary = json.loads((tmp_path / "audit.json").read_text())["summary"]
    assert (summary["answerable"], summary["unanswerable"], summary["false_refusal"]) == (1, 2, 0)
    assert summary["shown_units"] >= 1 and summary["not_verbatim"] == 0
    assert audit.main(audit_args(passages=shown)) == 0


