"""The passenger page's logic without Streamlit: flight scope, message checks, wording, and a conversation."""

from __future__ import annotations

import re

import pytest

from foundation.text import MAX_MESSAGE_CHARS, clean_message
from page.conversation import (
    Conversation,
    as_shown,
    interface_language,
    passages_shown_above,
    refusal_for,
)
from page.wording import (
    TEXT,
    WORDING_DIR,
    WordingError,
    consolidation_dates,
    escape_markdown,
    instrument_lines,
    load_wording,
)
from query_understanding.flight_scope import says_where_flight_went, with_flight_scope
from query_understanding.understanding import Understanding
from retrieval.coverage import outside_coverage
from retrieval.engine import SearchEngine
from retrieval.outcome import Outcome
from retrieval.results import QuestionResult, SearchResult
from review.log import FeedbackLog


@pytest.mark.parametrize(
    "turns",
    [
        ["WestJet YYC→YYZ, landed 4 hours late."],
        ["Flair YYC to YVR, they charged for seats"],
        ["My flight from Toronto to Paris was cancelled"],
        ["Vol annulé à Montréal hier soir"],
        ["Our domestic flight was delayed 5 hours"],
        ["We flew within Canada and lost a bag", "what now?"],
        ["Flight LHR-JFK was delayed"],
        ["bag lost on the way back from Cancun"],
        ["Mon vol vers les États-Unis a été annulé"],
        ["Air Canada was 7 hours late"],  # a Canadian carrier: the answer would change nothing shown
    ],
)
def test_a_named_place_code_or_scope_says_where_the_flight_went(turns):
    assert says_where_flight_went(turns)


@pytest.mark.parametrize(
    "turns",
    [
        ["My airline cancelled my flight, what am I owed?"],
        ["how long do i have to submit a claim for a delayed flight?"],
        ["they changed our flight AGAIN. can they keep doing that??"],
        ["Can they make us pay to sit together?", "It's with us and our kids"],
        ["What does the Canada Transportation Act say about complaints?"],
    ],
)
def test_no_place_means_the_page_asks(turns):
    assert not says_where_flight_went(turns)


@pytest.mark.parametrize(
    ("dialogue", "outside"),
    [
        ("My Lufthansa flight from Frankfurt to Munich was cancelled, what do I get?", True),
        ("British Airways lost my bag on a flight from London Heathrow to Edinburgh", True),
        ("KLM from Amsterdam to Toronto was 5 hours late", False),
        ("My Air Transat flight from Paris to Rome was delayed", False),
        ("Flight from London to Calgary delayed 4 hours", False),
        ("Air Canada was 7 hours late", False),
        ("I'm Canadian, I live in Ottawa; Ryanair lost my bag from Dublin to Madrid. Do Canadian rules help?", True),
        ("Je suis canadienne, j'habite à Montréal. Mon vol Vueling de Barcelone à Rome a été annulé.", True),
        ("I live in Toronto and my Alitalia flight from Toronto to Rome was cancelled", False),
        ("My Iberia flight from Madrid to Canada was cancelled", False),
        ("Canadian here (from Kitchener), Ryanair Dublin to Barcelona was 5 hrs late. Can the CTA help?", True),
        ("My home address is in Ontario; easyJet cancelled my Nice to Rome flight. What am I owed?", True),
        ("From Kitchener to Dublin on Air Canada, then Ryanair from Dublin to Barcelona was 5 hours late", False),
        ("I'm from Kitchener, Ontario. Delta cancelled my Atlanta to Denver flight, do I get the $1,000?", True),
        ("I know Canada has strong passenger rules. Vueling cancelled my Seville to Rome flight for a strike.", True),
        ("I'm from Kitchener, Ontario, and my Delta flight from Atlanta to Toronto was cancelled", False),
        ("My flight to Paris was delayed 5 hours, what do I get?", False),  # where it left from is not said
        ("My flight to the USA was delayed 6 hours", False),  # one place, named and written as a code
        ("Our flight to Heathrow (LHR) was 5 hours late", False),
        ("Canadian here. Frontier cancelled our DEN-LAS flight, can the CTA help?", True),
        # a flight between places abroad booked apart from the flight to or from Canada
        ("We flew WestJet from Calgary to Gatwick. On a separate ticket, easyJet cancelled our Gatwick to Nice "
         "flight. Do the Canadian rules cover that?", True),
        ("Vol Vueling de Barcelone à Rome réservé à part, rien à voir avec notre billet de Montréal. Il a été "
         "annulé. A-t-on droit à quelque chose?", True),
        ("Now back home in Toronto. A separate Iberia ticket from Madrid to Lisbon got cancelled, does Canada's law "
         "cover it?", True),
        ("On a separate ticket, our Air Canada flight from Toronto to Frankfurt was delayed and we missed our "
         "Lufthansa flight to Munich", False),  # the trouble is the Canadian flight's
        ("On a separate ticket, Frontier cancelled my Denver to Las Vegas flight. I flew Air Canada home from Las "
         "Vegas two days later, no issues at all, and then read that Canada pays $400 for a 3 hour delay.", True),
        ("I know in Canada we have the APPR rules. Thai Smile cancelled my Bangkok to Phuket flight.", True),
        ("I bought the Ryanair flight from Rome to Paris on its app, separately from my Air Canada tickets to Rome. "
         "Ryanair cancelled it the night before. Can I go to the Canadian agency?", True),
        ("Avec Air Transat, tout s'est bien passé. Notre vol Vueling de Barcelone à Rome, acheté séparément de nos "
         "billets, a été annulé. Est-ce que la loi canadienne s'applique?", True),
        ("We booked the hotel separately from our Air Canada flight from Toronto to Rome, which was cancelled", False),
        ("In Hanoi we booked a VietJet flight to Da Nang on their app, totally separate from our Air Canada "
         "tickets home. It was cancelled at 11pm. Can I complain to the Canadian agency?", True),
        ("We booked the hotel separately from our Air Canada flight from Toronto to Rome via Paris, which was "
         "cancelled", False),
        # a flight inside one country abroad names one place, and still has no Canadian end
        ("On a domestic flight in Mexico with Volaris my flight got cancelled. Do I get anything?", True),
        ("Mon vol intérieur au Mexique a été annulé, ai-je droit à quelque chose?", True),
        ("We flew within Japan on ANA and they lost a suitcase", True),
        ("My flight to Mexico was delayed 6 hours, is that domestic or international?", False),
        ("We flew WestJet to Cancun, then a domestic flight within Mexico was cancelled", False),
    ],
)
def test_a_flight_with_no_link_to_canada_is_outside_coverage(dialogue, outside):
    assert (outside_coverage(dialogue) is Outcome.NO_CANADIAN_LINK) is outside


def test_the_scope_answer_joins_the_last_message_in_its_language():
    assert with_flight_scope(["first", "My flight was cancelled."], "within") == [
        "first",
        "My flight was cancelled. The flight was within Canada.",
    ]
    (french,) = with_flight_scope(["Mon vol a été annulé, quels sont mes droits?"], "to_or_from")
    assert french.endswith("Le vol partait du Canada ou y arrivait.")
    assert says_where_flight_went([french])


def test_messages_are_cleaned_and_refused_before_any_search():
    assert clean_message("a\x00b\x1bc\td\ne\x7f ") == "abc\td\ne"
    assert refusal_for("") is Outcome.EMPTY
    assert refusal_for("   \n") is Outcome.EMPTY
    assert refusal_for("x" * MAX_MESSAGE_CHARS) is None
    assert refusal_for("x" * (MAX_MESSAGE_CHARS + 1)) is Outcome.TOO_LONG
    assert as_shown("x" * 20_000) == "x" * MAX_MESSAGE_CHARS + "…"


def test_french_switches_the_interface_and_english_does_not_switch_it_back():
    assert interface_language("en", "Mon vol a été annulé et ma valise est perdue") == "fr"
    assert interface_language("fr", "my flight was cancelled") == "fr"
    assert interface_language("en", "my flight was cancelled") == "en"


def test_both_languages_have_every_sentence():
    assert TEXT["en"].keys() == TEXT["fr"].keys()
    assert "otc-cta.gc.ca" in TEXT["en"]["not_covered"] and "tariff" in TEXT["en"]["not_covered"]
    for outcome in Outcome:
        assert TEXT["fr"][outcome] and TEXT["en"][outcome]


def test_a_sentence_missing_from_one_language_stops_the_page_at_start(tmp_path):
    for lang in ("en", "fr"):
        (tmp_path / f"{lang}.toml").write_text((WORDING_DIR / f"{lang}.toml").read_text(encoding="utf-8"), "utf-8")
    french = (tmp_path / "fr.toml").read_text(encoding="utf-8")
    (tmp_path / "fr.toml").write_text(french.replace("new_conversation =", "# new_conversation ="), "utf-8")
    with pytest.raises(WordingError, match=r"fr\.toml: no sentence for 'new_conversation'"):
        load_wording(tmp_path)


def test_escaped_markdown_has_no_live_markup():
    escaped = escape_markdown("<script>alert(1)</script> **bold** [x](http://e) :red[x] $x$ `c` # h\nline")
    assert not re.search(r"(?<!\\)[<>*\[\]()$:`#]", escaped)
    assert escaped.replace("\\", "") == "<script>alert(1)</script> **bold** [x](http://e) :red[x] $x$ `c` # h line"


def test_status_lines_come_from_the_snapshot_metadata(knowledge_base):
    sources = knowledge_base.sources
    assert consolidation_dates(sources) == sorted(set(consolidation_dates(sources)))
    assert "2025-07-24" in consolidation_dates(sources)
    lines = instrument_lines(sources, "fr")
    assert any(line.startswith("Règlement sur la protection des passagers aériens (SOR-2019-150)") for line in lines)
    assert len(lines) == len({instrument.doc for instrument in sources.instruments})


@pytest.fixture(scope="module")
def engine(knowledge_base) -> SearchEngine:
    return SearchEngine(knowledge_base)


def test_a_conversation_searches_logs_and_asks_where_the_flight_went(engine, tmp_path):
    log = FeedbackLog(tmp_path / "feedback.sqlite3")
    conversation = Conversation()
    first = conversation.ask("My flight was cancelled because of a crew shortage. What am I owed?", engine, log, None)
    assert first.search_result and first.search_result.results[0].hits
    assert first.asks_flight_scope
    assert len(first.shown_ids[0]) == len(first.search_result.results[0].hits)

    scoped = conversation.answer_flight_scope("within", "Within Canada", engine, log, None)
    assert scoped.message == "Within Canada" and not scoped.asks_flight_scope
    assert conversation.turns[-1].endswith("The flight was within Canada.")
    assert [turn.message for turn in log.recent_turns()] == [
        conversation.turns[-1],
        first.search_result.understanding.standalone,
    ]

    neither = conversation.answer_flight_scope("neither", "Neither", engine, log, None)
    assert neither.refusal is Outcome.FLIGHT_NOT_IN_CANADA and neither.search_result is None


def test_refused_messages_are_not_searched_or_logged(engine, tmp_path):
    log = FeedbackLog(tmp_path / "feedback.sqlite3")
    conversation = Conversation()
    too_long = conversation.ask("delay " * 2000, engine, log, None)
    empty = conversation.ask(" \x00 ", engine, log, None)
    assert (too_long.refusal, empty.refusal) == (Outcome.TOO_LONG, Outcome.EMPTY)
    assert too_long.length == len(("delay " * 2000).strip())
    assert conversation.turns == [] and log.recent_turns() == []


def test_a_question_whose_passages_an_earlier_one_shows_points_up_to_them(engine):
    question = "How much compensation for a flight delayed 5 hours?"
    hits = tuple(engine.search(question, "en"))
    uncovered = "What is the wifi password on the plane?"
    understanding = Understanding(question, (question, question, uncovered), "offline")
    result = SearchResult(
        understanding,
        (QuestionResult(question, hits), QuestionResult(question, (), hits), QuestionResult(uncovered, ())),
    )
    assert passages_shown_above(result) == ((), tuple(hit.passage.title for hit in hits), ())
