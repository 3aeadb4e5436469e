"""The situations measurement: every message names known situations, and a hand-made file is counted right."""

from __future__ import annotations

import argparse
import json

from eval.situations_eval import PHRASINGS, main
from kb.jsonl import read_jsonl
from kb.situations import load_situations


def test_every_message_names_known_situations():
    known = {situation.id for situation in load_situations().situations}
    records = read_jsonl(PHRASINGS)
    assert records and all(set(r["situations"]) <= known and r["batch"] in "ABCDEFGHI" for r in records)


def test_recall_counts_each_named_situation(tmp_path, capsys):
    path = tmp_path / "phrasings.jsonl"
    messages = [
        {"batch": "A", "lang": "en", "situations": ["bag-damaged"], "text": "My suitcase came back broken"},
        {"batch": "A", "lang": "en", "situations": ["tarmac-delay"], "text": "Nice flight, lovely crew"},
    ]
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    assert main(argparse.Namespace(phrasings=path, batch=None, by_situation=True, as_gold=gold)) == 0
    printed = capsys.readouterr().out
    assert "all        all          2      2   0.500" in printed
    assert "tarmac-delay                     0/1" in printed
    first = read_jsonl(gold)[0]
    assert first["turns"] == [messages[0]["text"]] and first["gold"] == [{"doc": "C-26", "unit": "sch6-art17"}]
