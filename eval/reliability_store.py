"""Reliability scenarios for the knowledge base and ingest (see `eval.reliability`)."""

from __future__ import annotations

from eval.reliability import Scenario

SCENARIOS: list[Scenario] = []
