"""Reliability scenarios for the search, the language-model client and the review page (see `eval.reliability`)."""

from __future__ import annotations

from eval.reliability import Scenario

SCENARIOS: list[Scenario] = []
