"""`python -m eval audit`: hold what the product shows to its promise, without a language model.

`--passages FILE.jsonl` reads shown passages, one `{doc, unit, lang, text}` record a line, and checks that
each is its unit's whole in-force text, word for word, against the shipped sources (for a guide page, the
section's text). Exit status 1 names each failing record and why.

`--gold FILE` runs the product on evaluation items with its built-in rules (no language model) and reports
false acceptance (law shown for an unanswerable item), false refusal (nothing shown for an answerable one),
the share of shown units that are not in gold (wrong law shown as if it applied) and passages that are not
their unit's text. `--write-passages FILE` keeps the passages it showed, in the format `--passages` reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from eval.product_audit import format_judgements, judge_item, summarise_judgements
from foundation.settings import Settings
from kb.jsonl import JsonLine, json_lines, read_jsonl
from kb.passage import Passage
from kb.sources import read_instruments
from kb.store import SOURCES_DIR, ModelMismatchError, StoreMissingError
from kb.verbatim import check_unit

FIELDS = ("doc", "unit", "lang", "text")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--passages", type=Path, help="shown passages, JSON Lines of {doc, unit, lang, text}")
    parser.add_argument("--gold", type=Path, help="evaluation items, JSON Lines: run the product and judge it")
    parser.add_argument("--k", type=int, default=5, help="passages per message, as the page shows (default 5)")
    parser.add_argument("--limit", type=int, help="only the first N gold items")
    parser.add_argument("--json", type=Path, help="write each gold item's judgement and the summary here")
    parser.add_argument("--write-passages", type=Path, help="write the passages shown for the gold items here")


def main(args: argparse.Namespace) -> int:
    if not args.passages and not args.gold:
        print("Give --passages FILE.jsonl, --gold FILE, or both.", file=sys.stderr)
        return 2
    status = 0
    if args.passages:
        status = max(status, audit_passages(args.passages))
    if args.gold:
        status = max(status, audit_gold(args))
    return status


def audit_passages(path: Path, sources_dir: Path = SOURCES_DIR) -> int:
    """0 when every record is its unit's text; 1, naming each failing record and why, when one is not."""
    try:
        lines = json_lines(path)
    except (OSError, UnicodeDecodeError) as error:
        print(f"Cannot read {path}: {error}", file=sys.stderr)
        return 2
    laws = {(instrument.doc, instrument.lang): instrument.file for instrument in read_instruments(sources_dir)}
    guides: dict[tuple[str, str, str], Passage] | None = None
    records = failures = 0
    for line in lines:
        records += 1
        record, reason = _record(line)
        if record and (record["doc"], record["lang"]) not in laws and guides is None:
            guides = _guide_passages()
        if record:
            reason = _check_record(record, laws, guides or {}, sources_dir)
        if reason:
            failures += 1
            name = f"{record['doc']} {record['unit']} ({record['lang']})" if record else "not a record"
            print(f"FAIL line {line.number}: {name}: {reason}")
    print(f"{records} passages checked, {failures} not their unit's text word for word.")
    return 1 if failures or not records else 0


def _record(line: JsonLine) -> tuple[dict | None, str]:
    if line.error:
        return None, f"not JSON ({line.error})"
    record = line.value
    if not isinstance(record, dict) or not all(isinstance(record.get(field), str) for field in FIELDS):
        return None, f"a record needs the text fields {', '.join(FIELDS)}"
    return record, ""


def _check_record(record: dict, laws: dict, guides: dict, sources_dir: Path) -> str | None:
    doc, unit, lang, text = (record[field] for field in FIELDS)
    if (doc, lang) in laws:
        passage = Passage(doc, unit, lang, "", (), "", "", text, laws[(doc, lang)])
    elif (doc, lang, unit) in guides:
        passage = guides[(doc, lang, unit)]
    else:
        return f"no source in the snapshot for {doc} in language {lang!r}"
    return check_unit(passage, text, sources_dir)


def _guide_passages() -> dict[tuple[str, str, str], Passage]:
    """Guide-page units of the built knowledge base: which saved page and section each names."""
    from kb.store import KnowledgeBase

    settings = Settings.from_environment()
    try:
        passages = KnowledgeBase.open(settings.store_dir, settings.chroma_url).passages
    except (StoreMissingError, ModelMismatchError):
        return {}
    return {(p.doc, p.lang, p.unit): p for p in passages if p.kind == "guide"}


def audit_gold(args: argparse.Namespace) -> int:
    from retrieval import search  # the search engine and its models load only when this runs

    settings = Settings.from_environment()
    try:
        engine = search.load_engine(settings.store_dir, settings.chroma_url)
    except (StoreMissingError, ModelMismatchError) as error:
        print(f"Cannot open the knowledge base: {error}", file=sys.stderr)
        return 2
    items = read_jsonl(args.gold)
    items = items[: args.limit] if args.limit is not None else items
    judgements, shown = [], []
    for item in tqdm(items, desc="product audit", unit="item", file=sys.stderr):
        found = search.search_dialogue(item["turns"], engine, k=args.k, llm_config=None)
        judgements.append({"id": item["id"], "type": item.get("type", ""), **judge_item(found, item.get("gold", []))})
        shown += [{field: getattr(p, field) for field in FIELDS} for p in found.shown_passages]
    summary = summarise_judgements(judgements)
    print(f"The product on {summary['items']} items (built-in rules, no language model, k={args.k}):")
    print("\n".join(format_judgements(summary)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"summary": summary, "items": judgements}
        args.json.write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    if args.write_passages:
        lines = [json.dumps(record, ensure_ascii=False) for record in shown]
        args.write_passages.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1 if summary["not_verbatim"] else 0
