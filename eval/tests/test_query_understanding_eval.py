"""`python -m eval decomposition` on a small check set: the counts, the JSON report and refused inputs; and the
labels it gives the questions of a compound message."""

from __future__ import annotations

import argparse
import json

from eval import decomposition_eval
from eval.decomposition_eval import issue_labels
from query_understanding import understand


def run(tmp_path, items: list[dict], *extra: str) -> tuple[int, dict | None]:
    check_set = tmp_path / "set.jsonl"
    check_set.write_text("\n".join(json.dumps(item) for item in items), encoding="utf-8")
    parser = argparse.ArgumentParser()
    decomposition_eval.configure(parser)
    report = tmp_path / "report.json"
    code = decomposition_eval.main(parser.parse_args(["--set", str(check_set), "--json", str(report), *extra]))
    return code, json.loads(report.read_text()) if report.exists() else None


def test_counts_found_missed_and_invented(tmp_path):
    items = [
        {
            "id": "a",
            "type": "compound",
            "turns": ["Flair cancelled my flight to Regina. What compensation do I get? And who pays my hotel?"],
            "issues": ["delay_compensation", "meals_hotel"],
        },
        {
            "id": "b",
            "type": "single",
            "turns": ["Can they make me check my guitar on WestJet?"],
            "issues": ["musical_instrument", "child_seating"],
        },
    ]
    code, report = run(tmp_path, items)
    overall = report["rows"][0]
    assert code == 0 and overall["group"] == "all"
    assert (overall["issues"], overall["found"], overall["missed"], overall["invented"]) == (4, 3, 1, 0)
    assert overall["split_ok"] == 1
    assert report["latency"]["offline"]["calls"] == 2
    assert [row["group"] for row in report["rows"]] == ["all", "type=compound", "type=single", "lang=en"]


def test_labels_outside_the_vocabulary_are_refused(tmp_path):
    code, report = run(tmp_path, [{"id": "a", "type": "single", "turns": ["x?"], "issues": ["lost_pet"]}])
    assert code == 2 and report is None


def test_llm_path_needs_an_endpoint(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, _ = run(tmp_path, [], "--qu", "llm")
    assert code == 2


def test_shipped_set_uses_the_vocabulary_and_runs(tmp_path):
    parser = argparse.ArgumentParser()
    decomposition_eval.configure(parser)
    assert decomposition_eval.main(parser.parse_args(["--json", str(tmp_path / "r.json")])) == 0


def test_compound_message_gives_one_question_per_issue_with_shared_facts():
    message = (
        "Swoop flight Hamilton to Winnipeg was cancelled for maintenance and we landed 11 hours late on the "
        "replacement. At baggage claim my daughter's stroller came out with a snapped wheel. "
        "How much compensation do we get? And who pays for the stroller?"
    )
    result = understand([message], config=None)
    first, second = result.questions
    assert first.startswith("How much compensation do we get")
    assert "11 hours" in first and "maintenance" in first and "stroller" not in first
    assert second.startswith("Who pays for the stroller") and "snapped" in second and "Swoop" in second
    assert "snapped wheel" in result.searched(1) and "Hamilton" in result.searched(1)
    assert issue_labels(first) >= {"delay_compensation"} and "baggage_damaged" in issue_labels(second)
