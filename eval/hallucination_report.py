"""Hallucination figures for the baseline and the product, as a table, Markdown and a bar chart.

- hallucination rate: share of answers with at least one kept finding (product: at least one failure);
- hallucinations per answer: findings per answer, a deterministic finding inside an LLM finding's span
  counted once in "combined";
- token share: word tokens inside hallucinated spans over all word tokens of the answers (product: of
  everything shown).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from eval.detector import Detection, Finding
from eval.product_audit import format_judgements, summarise_judgements

METHODS = ("deterministic", "llm", "combined")
_TOKEN = re.compile(r"\w+")


def summarise(rows: list[dict], *, model: str | None, prompt_version: str) -> dict:
    answered = [row for row in rows if row["baseline"] and row["baseline"]["answer"]]
    detections = {row["id"]: Detection.from_record(row["baseline"]["detection"]) for row in answered}
    llm_ran = any(detection.llm_ran for detection in detections.values())
    stage_failures = Counter(
        failure["stage"] for detection in detections.values() for failure in detection.stage_failures
    )
    stage_failures["baseline"] = sum(1 for row in rows if row["baseline"] and not row["baseline"]["answer"])
    types = sorted({row["type"] for row in rows})
    return {
        "items": len(rows),
        "model": model,
        "prompt_version": prompt_version,
        "baseline_answers": len(answered),
        "llm_detector_ran": llm_ran,
        "baseline": {method: _baseline_rates(answered, detections, method) for method in METHODS},
        "product": _product_rates(rows),
        "product_audit": summarise_judgements([row["product"]["judged"] for row in rows]),
        "by_type": {
            kind: {
                "items": sum(1 for row in rows if row["type"] == kind),
                **{
                    f"baseline_{method}": _baseline_rates(
                        [row for row in answered if row["type"] == kind], detections, method
                    )["rate"]
                    for method in METHODS
                },
                "product": _product_rates([row for row in rows if row["type"] == kind])["rate"],
            }
            for kind in types
        },
        "stage_failures": {stage: count for stage, count in stage_failures.items() if count},
    }


def _baseline_rates(answered: list[dict], detections: dict[str, Detection], method: str) -> dict:
    if not answered:
        return {"answers": 0, "flagged": 0, "rate": None, "per_answer": None, "token_share": None}
    counts = [_distinct_count(detections[row["id"]].kept(method)) for row in answered]
    inside = sum(_tokens_inside(row["baseline"]["answer"], detections[row["id"]].kept(method)) for row in answered)
    total = sum(len(_TOKEN.findall(row["baseline"]["answer"])) for row in answered)
    flagged = sum(1 for count in counts if count)
    return {
        "answers": len(answered),
        "flagged": flagged,
        "rate": flagged / len(answered),
        "per_answer": sum(counts) / len(answered),
        "token_share": inside / total if total else 0.0,
    }


def _product_rates(rows: list[dict]) -> dict:
    failures = [row["product"]["failures"] for row in rows]
    shown = sum(row["product"]["shown_tokens"] for row in rows)
    failed = sum(1 for item_failures in failures if item_failures)
    return {
        "answers": len(rows),
        "failed": failed,
        "rate": failed / len(rows) if rows else None,
        "per_answer": sum(map(len, failures)) / len(rows) if rows else None,
        "token_share": sum(row["product"]["failed_tokens"] for row in rows) / shown if shown else 0.0,
        "by_kind": dict(Counter(failure["kind"] for item_failures in failures for failure in item_failures)),
    }


def _distinct_count(findings: list[Finding]) -> int:
    """LLM findings, plus deterministic ones not lying inside an LLM finding's span."""
    llm_spans = [(f.start, f.end) for f in findings if not f.deterministic and f.start is not None]
    return sum(
        1
        for f in findings
        if not f.deterministic
        or f.start is None
        or f.type == "false acceptance"
        or not any(start <= f.start and f.end <= end for start, end in llm_spans)
    )


def _tokens_inside(answer: str, findings: list[Finding]) -> int:
    covered = [False] * len(answer)
    for finding in findings:
        if finding.start is not None:
            covered[finding.start : finding.end] = [True] * (finding.end - finding.start)
    return sum(1 for token in _TOKEN.finditer(answer) if any(covered[token.start() : token.end()]))


def _percent(value: float | None) -> str:
    return "not run" if value is None else f"{100 * value:.1f}%"


def _number(value: float | None) -> str:
    return "not run" if value is None else f"{value:.2f}"


def _main_table(summary: dict) -> list[list[str]]:
    llm = summary["llm_detector_ran"]
    rows = []
    for method, label in (
        ("deterministic", "figure + abstention checks"),
        ("llm", "LLM detector"),
        ("combined", "both"),
    ):
        rates = summary["baseline"][method]
        if method != "deterministic" and not llm:
            rates = {**rates, "rate": None, "per_answer": None, "token_share": None}
        rows.append(
            [
                f"generative baseline, {label}",
                str(rates["answers"]),
                _percent(rates["rate"]),
                _number(rates["per_answer"]),
                _percent(rates["token_share"]),
            ]
        )
    product = summary["product"]
    rows.append(
        [
            "product (verbatim passages, labelled questions)",
            str(product["answers"]),
            _percent(product["rate"]),
            _number(product["per_answer"]),
            _percent(product["token_share"]),
        ]
    )
    return rows


MAIN_HEADER = ["side", "answers", "hallucination rate", "hallucinations per answer", "tokens in hallucinated spans"]


def format_summary(summary: dict) -> str:
    lines = [f"{summary['items']} items; model {summary['model'] or 'none'}; prompts {summary['prompt_version']}"]
    rows = [MAIN_HEADER, *_main_table(summary)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(MAIN_HEADER))]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    baseline_rate = summary["baseline"]["combined" if summary["llm_detector_ran"] else "deterministic"]["rate"]
    lines.append(f"the product judged as the baseline is (baseline hallucination rate: {_percent(baseline_rate)}):")
    lines += format_judgements(summary["product_audit"])
    lines.append("by type (hallucination rate): baseline combined / product")
    for kind, rates in summary["by_type"].items():
        combined = rates["baseline_combined"] if summary["llm_detector_ran"] else rates["baseline_deterministic"]
        lines.append(f"  {kind:<13} n={rates['items']:<3} {_percent(combined):>8} / {_percent(rates['product'])}")
    if summary["stage_failures"]:
        lines.append("stage failures: " + ", ".join(f"{k} {v}" for k, v in summary["stage_failures"].items()))
    return "\n".join(lines)


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows])


def write_report(directory: Path, summary: dict, rows: list[dict]) -> None:
    """report.md with every finding, and hallucination_rates.png (rates by item type)."""
    directory.mkdir(parents=True, exist_ok=True)
    chart = directory / "hallucination_rates.png"
    _write_chart(chart, summary)
    llm = summary["llm_detector_ran"]
    by_type = [
        [
            kind,
            str(rates["items"]),
            _percent(rates["baseline_deterministic"]),
            _percent(rates["baseline_llm"] if llm else None),
            _percent(rates["baseline_combined"] if llm else None),
            _percent(rates["product"]),
        ]
        for kind, rates in summary["by_type"].items()
    ]
    findings = [
        [row["id"], row["type"], f["method"], f["type"], str(f["severity"]), f["span"][:160], f["justification"]]
        for row in rows
        if row["baseline"] and row["baseline"].get("detection")
        for f in row["baseline"]["detection"]["findings"]
    ]
    product_failures = [
        [row["id"], failure["kind"], failure["detail"], failure["span"][:160]]
        for row in rows
        for failure in row["product"]["failures"]
    ]
    sections = [
        "# Hallucination: generative baseline vs the product",
        f"{summary['items']} items; model `{summary['model'] or 'none'}`; prompt version "
        f"`{summary['prompt_version']}`; {summary['baseline_answers']} baseline answers written.",
        _markdown_table(MAIN_HEADER, _main_table(summary)),
        "## The product judged as the baseline is",
        "A passage of real law that does not answer the question, shown as the law that applies, misleads a "
        "passenger as a wrong sentence would; it is counted here, beside the baseline's hallucination rate "
        f"({_percent(summary['baseline']['combined' if llm else 'deterministic']['rate'])}).",
        "\n".join(line.strip() and f"- {line.strip()}" for line in format_judgements(summary["product_audit"])),
        "## By item type (hallucination rate)",
        _markdown_table(
            ["type", "items", "baseline deterministic", "baseline LLM", "baseline combined", "product"], by_type
        ),
        f"![hallucination rate by item type]({chart.name})",
        "## Stage failures (not findings)",
        _markdown_table(["stage", "count"], [[k, str(v)] for k, v in summary["stage_failures"].items()])
        if summary["stage_failures"]
        else "None.",
        "## Baseline findings",
        _markdown_table(["item", "type", "method", "finding", "severity", "span", "justification"], findings)
        if findings
        else "None.",
        "## Product failures",
        _markdown_table(["item", "kind", "detail", "span"], product_failures) if product_failures else "None.",
    ]
    (directory / "report.md").write_text("\n\n".join(sections) + "\n", encoding="utf-8")


def _write_chart(path: Path, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = list(summary["by_type"])
    series = [("product", "product", "tab:green")]
    if summary["baseline_answers"]:
        series = [("baseline_deterministic", "baseline, deterministic", "tab:orange"), *series]
    if summary["llm_detector_ran"]:
        series = [
            ("baseline_combined", "baseline, combined", "tab:red"),
            ("baseline_llm", "baseline, LLM", "tab:purple"),
            *series,
        ]
    figure, axes = plt.subplots(figsize=(max(6, 1.3 * len(kinds)), 4))
    width = 0.8 / len(series)
    for index, (field, label, colour) in enumerate(series):
        values = [100 * (summary["by_type"][kind][field] or 0) for kind in kinds]
        bars = axes.bar([x + index * width for x in range(len(kinds))], values, width, label=label, color=colour)
        axes.bar_label(bars, fmt="%.0f%%", fontsize=7)
    axes.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(kinds))], kinds, rotation=30, ha="right")
    axes.set_ylabel("answers with a hallucination (%)")
    axes.set_ylim(0, 100)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
