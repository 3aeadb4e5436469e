"""Every reason the page shows no passages, for a whole message or for one of its questions, or asks a question
before it shows any: one enum, so the page's wording is keyed by it once and the review log records its value."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    # the message is not searched (page/conversation.py)
    EMPTY = "empty"  # nothing to look up in the message
    TOO_LONG = "too_long"
    UNSUPPORTED_LANGUAGE = "unsupported_language"
    SEARCH_FAILED = "search_failed"
    SEARCH_SERVER_DOWN = "search_server_down"
    # the dialogue is beyond the knowledge base (retrieval/coverage.py); these values are what the log records
    FOREIGN_REGIME = "foreign regime"
    OTHER_SERVICE = "another kind of service"
    NOT_AIR_TRAVEL = "not about air travel"
    NO_CANADIAN_LINK = "no link to Canada"  # no Canadian departure, arrival or carrier, as the dialogue tells it
    UNLIKE_COVERED = "unlike what the law covers"  # the model of words (retrieval/coverage_words.py)
    FLIGHT_NOT_IN_CANADA = "flight_not_in_canada"  # the passenger answered: neither from nor to Canada
    # one question (retrieval/results.py)
    NOTHING_FOUND = "not_covered"  # nothing in the knowledge base is close enough to show
    SHOWN_ABOVE = "shown_above"  # what it found is already shown for an earlier question
    # asked before the passages are trusted (page/conversation.py)
    ASK_FLIGHT_SCOPE = "scope_question"  # the conversation does not say where the flight went
