"""`python -m eval reliability`: every fault, load and hostile-input scenario, each bounded in time, one table.

A scenario runs its trials and counts the ones that failed; a trial fails by raising (an AssertionError
names what went wrong). Scenarios live beside the part of the product they exercise: the store and
ingest ones in `eval.reliability_store`, the search, language-model and review-page ones in
`eval.reliability_runtime`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    name: str
    trials: int
    run: Callable[[int], None]  # one trial, given its number; raises on failure


def run_scenarios(scenarios: list[Scenario], only: str = "") -> list[tuple[str, int, int, float, str]]:
    rows = []
    for scenario in scenarios:
        if only and only not in scenario.name:
            continue
        failures, first_error, started = 0, "", time.monotonic()
        for trial in range(scenario.trials):
            try:
                scenario.run(trial)
            except Exception as error:  # noqa: BLE001 - a failed trial is counted and named, never fatal
                failures += 1
                first_error = first_error or f"{type(error).__name__}: {error}"[:160]
        rows.append((scenario.name, scenario.trials, failures, time.monotonic() - started, first_error))
    return rows


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", default="", help="run only the scenarios whose name contains this text")


def main(args: argparse.Namespace) -> int:
    from eval import reliability_runtime, reliability_store

    rows = run_scenarios([*reliability_store.SCENARIOS, *reliability_runtime.SCENARIOS], args.only)
    width = max([len(row[0]) for row in rows] + [8])
    print(f"{'scenario':<{width}}  trials  failures  seconds")
    for name, trials, failures, seconds, _ in rows:
        print(f"{name:<{width}}  {trials:>6}  {failures:>8}  {seconds:>7.1f}")
    for name, _, failures, _, error in rows:
        if failures:
            print(f"FAILED {name}: {error}")
    return 1 if any(row[2] for row in rows) else 0
