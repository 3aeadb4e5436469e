"""A unit of law whole, and the ways a passage can fail to be its unit's text: what the verbatim check and the
audit must each catch."""

from __future__ import annotations

from kb.passage import whole_unit


def whole(passages, doc: str, lang: str, unit: str):
    return whole_unit([p for p in passages if (p.doc, p.lang, p.unit) == (doc, lang, unit)])


def mutations(s19: str, s20: str) -> dict[str, str]:
    lines = s19.splitlines()
    return {
        "a line removed": "\n".join(line for line in lines if not line.startswith("(i) $400")),
        "a line of another unit appended": f"{s19}\n{s20.splitlines()[0]}",
        "two words glued": s19.replace("must provide", "mustprovide", 1),
        "a word changed": s19.replace("$400", "$4,000", 1),
        "labels only": "(a)\n(b)",
        "the first line followed by a line of the next section": f"{lines[0]}\n{s20.splitlines()[1]}",
    }
