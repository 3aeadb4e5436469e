"""The pinpoint evaluator's own arithmetic: near parts, and words read before the answer."""

from __future__ import annotations

from eval.pinpoint_eval import near, parent_label, words_before_end
from kb.passage import LawPart

TEXT = "19 (1) A carrier must pay:\n(a) for a large carrier,\n(i) $400, if three hours,\n(ii) $700, if six hours"


def part(label: str, text: str) -> LawPart:
    start = TEXT.index(text)
    return LawPart(label, text, start, start + len(text))


def test_near_is_the_gold_part_its_parent_or_its_child():
    assert parent_label("(1)(a)(ii)") == "(1)(a)" and parent_label('(2)"large carrier"') == "(2)"
    assert near("(1)(a)", "(1)(a)(ii)") and near("(1)(a)(ii)", "(1)(a)") and near("(2)", "(2)")
    assert not near("(1)", "(1)(a)(ii)") and not near("(1)(a)(i)", "(1)(a)(ii)")


def test_words_before_the_end_of_the_gold_part_with_and_without_pinpointing():
    ii = part("(1)(a)(ii)", "(ii) $700, if six hours")
    assert words_before_end((ii,), TEXT, ii) == (5, len(TEXT.split()))
    a = part("(1)(a)", TEXT[TEXT.index("(a)") :])
    assert words_before_end((a,), TEXT, ii) == (len(a.text.split()), len(TEXT.split()))
    i = part("(1)(a)(i)", "(i) $400, if three hours,")
    assert words_before_end((i,), TEXT, ii) == (5 + len(TEXT.split()), len(TEXT.split()))
    assert words_before_end((), TEXT, ii) == (len(TEXT.split()), len(TEXT.split()))
