"""Whether a conversation says where the flight went, and what a passenger's answer to that adds to it.

Canada's passenger protection rules apply to flights to, from and within Canada, so the page asks when the
conversation names no place at all. Any named place counts, Canadian or foreign: the point is only that the
passenger has said something the law can turn on. The gazetteer is short on purpose; a place it misses only
means the page asks a question the passenger can ignore.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from foundation.text import detect_language, fold, words
from query_understanding.lexicon import (
    AIRPORT_CODE,
    APART_FROM,
    AUSTRALIA,
    CANADA,
    CANADIAN_AIRPORT_CODE,
    CANADIAN_CARRIER,
    CANADIAN_PLACE,
    CANADIAN_RULES,
    CARRIER,
    CONTRAST,
    DOMESTIC_ABROAD,
    DOMESTIC_WORDS,
    EVENT_FAMILY,
    FLIGHT_NAMED,
    FOREIGN_PLACE,
    HEARSAY,
    INTERNATIONAL_WORDS,
    NO_CANADA_CARRIER,
    PLACE,
    RESIDENCE,
    ROUTE_OF_CODES,
    SCOPE_WORDS,
    SEPARATE_BOOKING,
    UK_LONDON,
    UNEVENTFUL_FLIGHT,
    WENT_WELL,
    families,
)
from query_understanding.segments import sentences

ScopeChoice = Literal["within", "to_or_from"]
Reach = Literal["domestic", "international"]

SCOPE_SENTENCES: dict[str, dict[ScopeChoice, str]] = {
    "en": {"within": "The flight was within Canada.", "to_or_from": "The flight was to or from Canada."},
    "fr": {"within": "Le vol était à l'intérieur du Canada.", "to_or_from": "Le vol partait du Canada ou y arrivait."},
}


def says_where_flight_went(turns: list[str]) -> bool:
    """True when any turn names a place, an airport code, a Canadian carrier (whose flights are covered wherever
    they go, so the answer would change nothing), or says domestic/international/within Canada."""
    for turn in turns:
        folded = fold(turn)
        if (
            PLACE.search(folded)
            or CANADA.search(folded)
            or SCOPE_WORDS.search(folded)
            or CANADIAN_CARRIER.search(folded)
        ):
            return True
        if AIRPORT_CODE.search(turn) or ROUTE_OF_CODES.search(turn):
            return True
    return False


def names_canada(text: str) -> bool:
    """True when the text names Canada, a Canadian place or airport, or Canada's rules or agency."""
    folded = fold(text)
    return bool(CANADIAN_PLACE.search(folded) or CANADIAN_RULES.search(folded) or CANADIAN_AIRPORT_CODE.search(text))


def no_canadian_link(text: str) -> bool:
    """True when the flight plainly has no Canadian point of departure or arrival and no Canadian carrier: it names two
    places or airports abroad, or a flight inside one country abroad ("a domestic flight in Mexico"), and no Canadian
    place, airport or carrier, nor Canada ("London" with Heathrow or the UK is London, England). One place abroad is not
    enough otherwise: "my flight to Paris was delayed" leaves out where it left from, most often Canada. Where the
    passenger lives, the passport they hold and the rules they hope for do not link a flight to Canada: Canadian law on
    air passengers does not reach a flight from Milan to Athens because the passenger lives in Toronto, and the page
    says so. Nor does a flight to Canada that went well link a flight between places abroad booked apart from it ("a
    separate ticket", "réservé à part"), unless a sentence telling the trouble names a Canadian place, airport or
    carrier. A carrier that flies no route to or from Canada (Ryanair, Jetstar, Viva Aerobus...) is enough, when no
    sentence naming it names a Canadian place, airport or carrier and no Canadian carrier or airport is named at all:
    its flights are all abroad, and the passenger's home or Canada named elsewhere links none of them. A flight booked
    apart needs only one place abroad when the sentence booking it names the flight and no Canadian point; a flight
    inside one country abroad ("bumped on a domestic flight in India") is not linked by Canada named beside it ("in
    Canada I think being bumped gets you $900"), unless a sentence telling the trouble names a Canadian point."""
    folded = RESIDENCE.sub(" ", fold(text))
    places, airports = _places_abroad(folded), _airports_abroad(text)
    said = sentences(text)
    told_of = [s for s in said if NO_CANADA_CARRIER.search(s)]
    linked = CANADIAN_CARRIER.search(folded) or CANADIAN_AIRPORT_CODE.search(text)
    named = (_names_canadian_point(s, RESIDENCE.sub(" ", fold(s)), folded) for s in told_of)
    if told_of and not linked and not any(named):
        return True
    if len(places) < 2 and len(airports) < 2 and not DOMESTIC_ABROAD.search(folded):  # "Heathrow (LHR)" is one
        if not (places or airports) or not SEPARATE_BOOKING.search(folded):
            return False
        # one place abroad is enough for a flight booked apart whose own sentence names it and no
        # Canadian point ("Air New Zealand Auckland to Queenstown, separate booking"), not for a hotel booked apart
        flights_told = (s for s in said if CARRIER.search(s) or FLIGHT_NAMED.search(fold(s)))
        apart = [s for s in flights_told if SEPARATE_BOOKING.search(fold(s))]
        alone = not any(_names_canadian_point(s, RESIDENCE.sub(" ", fold(s)), folded) for s in apart)
        return bool(apart and alone and not _tells_canadian_trouble_in(said, folded))
    if _booked_apart_abroad(said, folded) or DOMESTIC_ABROAD.search(folded):
        # a flight booked apart, or one inside a country abroad, that no Canadian trouble is told beside
        return not _tells_canadian_trouble_in(said, folded)
    return not _names_canadian_point(text, folded, folded)


def _booked_apart_abroad(said: list[str], context: str) -> bool:
    """Whether a flight booked apart may be one abroad: not when each sentence booking one apart names a Canadian
    point and nothing abroad ("a connecting WestJet flight to Ottawa booked separately"): the flight booked apart is
    then Canada's, and the one abroad, if any, is not said to be apart. "Booked separately from our Air Canada
    flight" names the flight that is not apart."""
    apart = [(s, RESIDENCE.sub(" ", fold(s))) for s in said]
    return any(
        APART_FROM.search(folded) or _places_abroad(folded) or _airports_abroad(s)
        or not _names_canadian_point(s, folded, context)
        for s, folded in apart
        if SEPARATE_BOOKING.search(folded)
    )


def _names_canadian_point(text: str, folded: str, context: str) -> bool:
    """Whether a text (and its folded form, without where the passenger lives) names a Canadian carrier, Canada, or
    a Canadian airport or place: "London" with Heathrow or the UK in its `context` (the folded message) is London,
    England, and "Sydney" with Australia or Qantas is Sydney, Australia."""
    if CANADIAN_CARRIER.search(folded) or CANADA.search(folded) or CANADIAN_AIRPORT_CODE.search(text):
        return True
    canadian_places = {match.group(0) for match in CANADIAN_PLACE.finditer(folded)}
    if UK_LONDON.search(context):
        canadian_places -= {"london"}
    if AUSTRALIA.search(context):
        canadian_places -= {"sydney"}
    return bool(canadian_places)


@lru_cache(maxsize=256)
def flight_reach(text: str) -> Reach | None:
    """Whether the flight told of stayed in Canada or crossed a border, when the text says so; else None.

    Some rules turn on it: a domestic carrier's tariff answers to the Act (s. 67, 67.2), an international one to
    the Air Transportation Regulations (s. 110 to 122). A place or airport abroad, or a word such as
    "international", makes a flight international; two Canadian places or airports and nothing abroad, or a word
    such as "domestic", make it domestic; one Canadian place alone says nothing ("my flight from Toronto").
    Where the passenger lives is no place the flight went. Cached: each question of a dialogue asks it of the
    same dialogue, and the evaluator ranks each question under many weights."""
    folded = RESIDENCE.sub(" ", fold(text))
    if _places_abroad(folded) or _airports_abroad(text) or INTERNATIONAL_WORDS.search(folded):
        return "international"
    canadian = {match.group(0) for match in CANADIAN_PLACE.finditer(folded)}
    canadian |= set(CANADIAN_AIRPORT_CODE.findall(text))
    return "domestic" if DOMESTIC_WORDS.search(folded) or len(canadian) >= 2 else None


def _tells_canadian_trouble_in(said: list[str], context: str) -> bool:
    return any(_tells_canadian_trouble(sentence, context) for sentence in said)


def _tells_canadian_trouble(sentence: str, context: str) -> bool:
    """Whether a sentence tells a delay, a cancellation, a denied boarding... (the event topics) of a flight with a
    Canadian place, airport or carrier: "our Air Canada flight from Toronto was cancelled", not "I'm from Ottawa",
    nor "do the Canadian rules cover this since we flew to Thailand from YYC?", nor a sentence saying the Canadian
    flight went well ("flew WestJet home, no issues, then read about the $700 for a delay"), nor what the passenger
    read or remembers ("I remember when Air Canada bumped my dad"). "London" with Heathrow in the `context` (the
    folded message) is London, England."""
    folded = APART_FROM.sub(" ", RESIDENCE.sub(" ", fold(sentence)))  # "apart from our Air Canada tickets home"
    went_well = UNEVENTFUL_FLIGHT.search(folded) or WENT_WELL.search(folded)  # "Vancouver to Sydney (flawless)"
    if (went_well and not CONTRAST.search(folded)) or HEARSAY.search(folded):
        return False
    canadian = CANADIAN_CARRIER.search(folded) or _names_canadian_point(sentence, CANADA.sub(" ", folded), context)
    return bool(canadian and EVENT_FAMILY in families(sentence))


def _places_abroad(folded: str) -> set[str]:
    """The places abroad a folded text names, London counting only with Heathrow, the UK and the like, and Sydney
    only with Australia, Qantas and the like."""
    places = {match.group(0) for pattern in (FOREIGN_PLACE, UK_LONDON) for match in pattern.finditer(folded)}
    return places | {"sydney"} if AUSTRALIA.search(folded) and "sydney" in words(folded) else places


def _airports_abroad(text: str) -> set[str]:
    """The foreign airport codes a text names, in capitals ("US", "UK" and "EU" are no airports)."""
    return {code for code in AIRPORT_CODE.findall(text) if len(code) == 3 and not CANADIAN_AIRPORT_CODE.match(code)}


def with_flight_scope(turns: list[str], choice: ScopeChoice) -> list[str]:
    """The dialogue with the passenger's answer added to the last message, in that message's language.

    Added to the last message rather than as a turn of its own, so the question searched is still the
    passenger's own question, now saying where the flight went.
    """
    if not turns:
        raise ValueError("There is no message to add the flight's scope to.")
    sentence = SCOPE_SENTENCES[detect_language(turns[-1])][choice]
    return [*turns[:-1], f"{turns[-1].rstrip()} {sentence}"]
