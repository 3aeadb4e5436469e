"""The coverage model's fit: the words of messages not covered weigh toward a refusal, and the dev set never goes in."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from eval.coverage_fit import fit, main
from retrieval.coverage_words import features


def test_the_words_of_messages_not_covered_weigh_toward_a_refusal():
    messages = [{"words": features(f"the train was late {n}"), "covered": False} for n in range(4)]
    messages += [{"words": features(f"the flight was late {n}"), "covered": True} for n in range(4)]
    model = fit(messages, penalty=1.0, threshold=0.9)
    assert model.weights["train"] > 0 > model.weights["flight"]
    assert model.likelihood_outside("the train was late") > 0.5 > model.likelihood_outside("the flight was late")


def test_the_dev_set_never_goes_into_the_fit():
    with pytest.raises(SystemExit, match="dev set"):
        main(argparse.Namespace(gold=[Path("eval/dev.jsonl")], write=False))
