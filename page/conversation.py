"""What the passenger page does with a message, apart from drawing it: check it, search it, log it, remember it.

A `Conversation` lives in the page's session state; tests drive it directly. It keeps two lists: the turns
as the search sees them (the passenger's messages, the last one carrying the flight's scope once the
passenger has answered that question) and the exchanges as the page shows them.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Literal

from foundation.settings import LLMSettings
from foundation.text import MAX_MESSAGE_CHARS, clean_message, detect_language
from query_understanding.flight_scope import ScopeChoice, says_where_flight_went, with_flight_scope
from query_understanding.languages import in_unsupported_language
from retrieval.engine import SearchEngine
from retrieval.outcome import Outcome
from retrieval.results import SearchResult
from retrieval.search import search_dialogue
from review.log import FeedbackLog, FeedbackLogError

log = logging.getLogger(__name__)




def as_shown(message: str) -> str:
    """The message as the page shows it back: cleaned, and cut at the length the page searches."""
    message = clean_message(message)
    return message if len(message) <= MAX_MESSAGE_CHARS else message[:MAX_MESSAGE_CHARS] + "…"


def refusal_for(message: str) -> Outcome | None:
    """Why a cleaned message is not searched at all: nothing in it, longer than the page searches, or written
    in a language the knowledge base and the rules do not read."""
    if not message.strip():
        return Outcome.EMPTY
    if len(message) > MAX_MESSAGE_CHARS:
        return Outcome.TOO_LONG
    if in_unsupported_language(message):
        return Outcome.UNSUPPORTED_LANGUAGE
    return None


def interface_language(current: str, message: str) -> str:
    """French once the passenger writes in French; otherwise the language already chosen."""
    return "fr" if detect_language(message) == "fr" else current


@dataclass
class Exchange:
    """One message and what the page showed for it.

    `message` is what the passenger typed, or the label of the choice they clicked. `refusal` says why a fixed
    message is shown instead of a search. `shown_ids` are the feedback log's ids of the passages, per question;
    `shown_above` the titles of passages a question found that an earlier question already shows.
    """

    message: str
    search_result: SearchResult | None = None
    refusal: Outcome | None = None
    length: int = 0
    turn_id: int | None = None
    shown_ids: tuple[tuple[int, ...], ...] = ()
    shown_above: tuple[tuple[str, ...], ...] = ()
    asks_flight_scope: bool = False


def passages_shown_above(result: SearchResult) -> tuple[tuple[str, ...], ...]:
    """Per question, the titles of what it found that an earlier question already shows, so that the page
    points up to them rather than saying the knowledge base does not cover the question."""
    return tuple(tuple(hit.passage.title for hit in question.shown_above) for question in result.results)


@dataclass
class Conversation:
    turns: list[str] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)

    def ask(
        self, message: str, engine: SearchEngine, feedback_log: FeedbackLog, llm_config: LLMSettings | None
    ) -> Exchange:
        """Search a new message in the light of the earlier ones, unless it is refused."""
        message = clean_message(message)
        refusal = refusal_for(message)
        if refusal:
            return self._add(Exchange(as_shown(message), refusal=refusal, length=len(message)))
        return self._search([*self.turns, message], message, engine, feedback_log, llm_config)

    def answer_flight_scope(
        self,
        choice: ScopeChoice | Literal["neither"],
        label: str,
        engine: SearchEngine,
        feedback_log: FeedbackLog,
        llm_config: LLMSettings | None,
    ) -> Exchange:
        """Search the last message again, now saying where the flight went; "neither" is answered with a fixed note."""
        if choice == "neither" or not self.turns:
            return self._add(Exchange(label, refusal=Outcome.FLIGHT_NOT_IN_CANADA))
        return self._search(with_flight_scope(self.turns, choice), label, engine, feedback_log, llm_config)

    def _search(
        self,
        turns: list[str],
        shown_as: str,
        engine: SearchEngine,
        feedback_log: FeedbackLog,
        llm_config: LLMSettings | None,
    ) -> Exchange:
        try:
            result = search_dialogue(turns, engine, llm_config=llm_config)
        except Exception:  # the page must say something plain rather than show a stack trace
            log.exception("search failed")
            server_down = engine.knowledge_base.server_unreachable()
            refusal = Outcome.SEARCH_SERVER_DOWN if server_down else Outcome.SEARCH_FAILED
            return self._add(Exchange(shown_as, refusal=refusal))
        self.turns = turns
        exchange = Exchange(
            shown_as,
            search_result=result,
            shown_above=passages_shown_above(result),
            asks_flight_scope=bool(result.understanding.questions)
            and not result.outside_coverage
            and not says_where_flight_went(turns),
        )
        with contextlib.suppress(FeedbackLogError):  # the passenger still sees the passages; the log says why
            exchange.turn_id, exchange.shown_ids = feedback_log.log_turn(turns, result)
        return self._add(exchange)

    def _add(self, exchange: Exchange) -> Exchange:
        self.exchanges.append(exchange)
        return exchange
