"""`python -m eval <command>`: every measurement of the product, one command each."""

from __future__ import annotations

import argparse
import importlib
import sys

# command -> module; each module defines configure(parser) and main(args) -> int
COMMANDS = {
    "retrieval": ("eval.retrieval_eval", "retrieval quality (P@k, R@k, F1@k, MAP@k, abstention, latency)"),
    "decomposition": ("eval.decomposition_eval", "issues the decomposer found, missed and invented"),
    "audit": ("eval.audit", "the product held to its promise: verbatim units, false acceptance and refusal, wrong law"),
    "hallucination": ("eval.hallucination", "generative RAG baseline vs the product, audited for hallucination"),
    "detector": ("eval.detector_eval", "precision and recall of the hallucination detector on planted errors"),
    "ingest": ("eval.ingest_benchmark", "build time, unchanged re-run time, passages per language, store size"),
    "tune": ("eval.tune", "fusion weights and threshold chosen by k-fold cross-validation, held-out figures"),
    "ranker": ("eval.ranker_fit", "the ranker fitted on story sets, each set measured held out; --write ships it"),
    "linear": ("eval.linear_eval", "the linear map's penalty, chosen on held-out bank entries"),
    "coverage": ("eval.coverage_eval", "law shown where no Canadian law applies, and nothing shown where it does"),
    "coverage-words": ("eval.coverage_fit", "the coverage rules' model of words, writers held out; --write ships it"),
    "situations": ("eval.situations_eval", "how often the situations hold for passengers' own telling of them"),
    "pinpoint": ("eval.pinpoint_eval", "the part of the law that answers: unit recall, strict and near, words read"),
    "reliability": ("eval.reliability", "fault, load and hostile-input scenarios: trials and failures"),
    "redaction": ("eval.redaction_eval", "identifiers removed per kind, and facts the law needs wrongly removed"),
    "scale": ("eval.scale", "two page processes, one Chroma server, one PostgreSQL: 40 passengers at once"),
    "startup": ("eval.startup", "seconds from starting a page process to its first answer, and where they go"),
}


def main(argv: list[str] | None = None) -> int:
    # "@eval/fit_sets.txt" stands for the arguments the file lists, one a line: the story sets the shipped fits read
    parser = argparse.ArgumentParser(prog="python -m eval", description=__doc__, fromfile_prefix_chars="@")
    commands = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, (module_name, help_text) in COMMANDS.items():
        modules[name] = importlib.import_module(module_name)
        modules[name].configure(commands.add_parser(name, help=help_text, description=help_text))
    args = parser.parse_args(argv)
    return modules[args.command].main(args)


if __name__ == "__main__":
    sys.exit(main())
