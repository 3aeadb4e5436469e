"""The whole unit with the pinpointed part marked: styling only, the law's text escaped, the mark a slice."""

from __future__ import annotations

import html
import re
from dataclasses import replace

from kb.passage import LawPart
from page.marking import marked_html, part_reference
from page.wording import say
from testing.unit_changes import whole

MARK = re.compile(r"<mark[^>]*>(.*?)</mark>", re.DOTALL)


def shown_text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_the_marked_text_is_a_slice_of_the_unit_and_nothing_is_added(law_passages):
    s19 = whole(law_passages, "SOR-2019-150", "en", "s19")
    part = next(part for part in s19.parts if part.label == "(1)(a)(ii)")
    markup = marked_html(s19.text, (part,))
    (marked,) = MARK.findall(markup)
    assert html.unescape(marked) == part.text == s19.text[part.start : part.end]
    assert shown_text(markup) == s19.text


def test_law_text_cannot_become_markup(law_passages):
    s19 = whole(law_passages, "SOR-2019-150", "en", "s19")
    planted = "<img src=x onerror=alert(1)> **bold** [link](http://e)\n" + s19.text
    part = LawPart("(1)", planted[:20], 0, 20)
    markup = marked_html(planted, (part,))
    assert "<img" not in markup and shown_text(markup) == planted


def test_the_label_names_the_section_and_the_path(law_passages):
    s19 = whole(law_passages, "SOR-2019-150", "en", "s19")
    part = next(part for part in s19.parts if part.label == "(1)(a)(ii)")
    key, values = part_reference(s19, part)
    assert say("en", key, **values) == "The part that matches your question: subsection 19(1)(a)(ii)"
    assert say("fr", key, **values) == "La partie qui répond à votre question : paragraphe 19(1)(a)(ii)"
    article = replace(s19, unit="sch6-art22", title="Article 22")
    key, values = part_reference(article, part)
    assert say("en", key, **values) == "The part that matches your question: Article 22, (1)(a)(ii)"
