"""Whether a dialogue is about what the knowledge base covers: air travel under Canadian law.

The law in the knowledge base speaks of flights, carriers and baggage (and, for persons with disabilities, of
trains, buses and ferries too). A message about a train delay or a hotel booking, or one that asks only under a
foreign regime such as the EU's Regulation 261/2004, would otherwise get the nearest sections about flights, which
look relevant and are not; it is better to say that the knowledge base does not cover it; naming the Agency or the
Regulations beside such a service ("can I complain to the CTA about my insurer?") tells no flight. A flight between
two places abroad on a carrier that is not Canadian is beyond Canadian law, and so is one booked apart from a
flight to Canada that went well. A foreign regime named beside Canada ("EU261 or the Canadian rules?", a flight to
Toronto) is still a Canadian question, and a hotel, a meal or a taxi while a flight is disrupted is what the
carrier owes under the Air Passenger Protection Regulations, not another kind of service. An airline's loyalty
programme is another kind of service too, unless the dialogue tells a disrupted flight (points offered for a
cancellation). A passenger who says they have no disability ("I'm not disabled, just fed up") does not bring a
train into the law's reach, and neither does a disability bring a cruise or a railway abroad (Amtrak) into it. The
flights a passenger names only to ask whether a law reaches the trouble, or to repeat what they read or heard of
one ("does the APPR cover the shuttle?", "my sister says there's a Canadian law"), are no evidence that the trouble
was a flight. Where the rules see nothing beyond the law, a model of words (`retrieval/coverage_words.py`) may still
find the dialogue unlike every trouble the law covers.
"""

from __future__ import annotations

import re

from foundation.text import fold
from query_understanding.flight_scope import names_canada, no_canadian_link
from query_understanding.lexicon import (
    AIR_TRAVEL,
    ASKING,
    AT_AIRPORT,
    CANADA,
    CANADIAN_CARRIER,
    CANADIAN_RULES,
    CANCELLED_BY_PASSENGER,
    CARRIER,
    CONTRAST,
    DISABILITY,
    DISRUPTION,
    EVENT_FAMILY,
    FLIGHT_NAMED,
    FOREIGN_REGIME,
    HEARSAY,
    LOYALTY_PROGRAM,
    MODES_BEYOND_ACCESSIBILITY,
    ON_ANY_MODE,
    OTHER_MODE,
    OTHER_SERVICE,
    ROUTE_OF_CODES_AMONG_WORDS,
    RULES_HOPED_FOR,
    STAY_AND_RIDE,
    UNEVENTFUL_FLIGHT,
    WENT_WELL,
    families,
)
from query_understanding.segments import looks_like_question, sentences
from retrieval.coverage_words import CoverageWords, load_coverage_words
from retrieval.outcome import Outcome

# where a sentence turns ("no issues there, but the resort..."): each side is weighed apart
_CONTRAST_CLAUSE = re.compile(f"(?={CONTRAST.pattern})", re.IGNORECASE)


def outside_coverage(dialogue: str, model: CoverageWords | None = None) -> Outcome | None:
    """Why the dialogue falls outside the knowledge base, or None when it may be covered: by the rules, then by the
    model of words (the shipped one unless `model` is given)."""
    outside = outside_by_rules(dialogue)
    if outside is None and (model or load_coverage_words()).refuses(dialogue):
        return Outcome.UNLIKE_COVERED
    return outside


def outside_by_rules(dialogue: str) -> Outcome | None:
    """Why the coverage rules find the dialogue outside the knowledge base, or None."""
    told, dialogue = dialogue, _without_uneventful_flights(dialogue)
    text = fold(dialogue)
    if FOREIGN_REGIME.search(text) and not names_canada(dialogue):
        return Outcome.FOREIGN_REGIME
    air_words = [match.group(0) for match in AIR_TRAVEL.finditer(OTHER_SERVICE.sub(" ", text))]  # not "airport parking"
    routes = len(ROUTE_OF_CODES_AMONG_WORDS.findall(dialogue))
    disruption = DISRUPTION.search(text)
    disability = DISABILITY.search(text) and not MODES_BEYOND_ACCESSIBILITY.search(text)  # not a cruise, not Amtrak
    flights_went_well = not air_words and not routes and AIR_TRAVEL.search(fold(told))
    # every flight told went well and the trouble is with something else; not "Coming back, it was cancelled"
    if flights_went_well and not disability and (OTHER_SERVICE.search(text) or not disruption):
        return Outcome.OTHER_SERVICE
    said = sentences(dialogue)
    hoped = [sentence for sentence in said if _hopes_for_rules(sentence)]
    hoped = hoped if len(hoped) < len(said) else []  # a lone question to the rules is the trouble told
    lived = " ".join(sentence for sentence in said if sentence not in hoped)  # what happened, not what was read
    flight_words = [match.group(0) for match in AIR_TRAVEL.finditer(OTHER_SERVICE.sub(" ", fold(lived)))]
    flight_words += CANADIAN_CARRIER.findall(fold(" ".join(hoped)))  # "does the APPR make WestJet pay?"
    flight_words += [name for name in CARRIER.findall(lived) if not CANADIAN_CARRIER.search(fold(name))]  # Air France
    if OTHER_MODE.search(text):  # a bag or a seat on a train is no flight
        flight_words = [word for word in flight_words if not ON_ANY_MODE.fullmatch(word)]
    if OTHER_SERVICE.search(text):  # the airport's parking lot, its exit gate; the CTA asked about an insurer
        flight_words = [w for w in flight_words if not (AT_AIRPORT.fullmatch(w) or CANADIAN_RULES.fullmatch(w))]
    other = len(OTHER_SERVICE.findall(text)) + (0 if air_words or routes else len(STAY_AND_RIDE.findall(text)))
    if other > len(flight_words) + routes and not disability:  # a flight's own trouble told weighs as two words more
        troubles = sum(_tells_flight_trouble(sentence) for sentence in said if sentence not in hoped)
        if other > len(flight_words) + routes + 2 * troubles:
            return Outcome.OTHER_SERVICE
    if LOYALTY_PROGRAM.search(text) and EVENT_FAMILY not in families(dialogue) and not disability:
        return Outcome.OTHER_SERVICE  # points that expired: no law here governs a loyalty programme
    if not air_words and not routes and not disruption and not disability:
        return Outcome.NOT_AIR_TRAVEL
    # "that part went fine" may say it was booked apart; "I remember when Air Canada bumped my dad" links nothing
    # a question that names Canada itself ("can I sue them here in Canada?") still says where the passenger is; what
    # they heard or know of Canada's rules does not
    linked = " ".join(sentence for sentence in said if sentence not in hoped or _names_canada_itself(sentence))
    if any(no_canadian_link(version) for version in dict.fromkeys((dialogue, told, linked))):  # each text once
        return Outcome.NO_CANADIAN_LINK
    return None


def _without_uneventful_flights(dialogue: str) -> str:
    """The dialogue without its clauses saying that a flight went well, unless they tell a trouble too: "We flew
    WestJet to Miami for the cruise, no issues there" names a Canadian carrier and a flight, and says neither is
    what the passenger asks about; in "Flew Air Canada to Cancún, no issues there, but the resort was a disaster",
    only what follows "but" is kept. "Aucun retard" says the flight went well, not that it was late, and so does a
    clause naming a flight with "impeccable" or "comme sur des roulettes" and no trouble."""
    kept = []
    for sentence in sentences(dialogue):
        for clause in _clauses(sentence):
            folded = fold(clause)
            uneventful = UNEVENTFUL_FLIGHT.search(folded) or (AIR_TRAVEL.search(folded) and WENT_WELL.search(folded))
            if not uneventful or DISRUPTION.search(WENT_WELL.sub(" ", UNEVENTFUL_FLIGHT.sub(" ", folded))):
                kept.append(clause.strip())
    return " ".join(part for part in kept if part)


def _clauses(sentence: str) -> list[str]:
    """A sentence's sides where it turns ("no issues there, but the resort..."), and an aside in brackets that names
    a flight of its own: "Booked Southwest Denver to Phoenix on its own (I flew WestJet YYC-DEN, zero problems)" tells
    two flights, and only the one in brackets went well; "landed from Tokyo (flight fine)" tells one. A turn inside
    brackets ("Flew Air Canada to Delhi (long but no issues)") is the aside's own."""
    turns = [m.start() for m in _CONTRAST_CLAUSE.finditer(sentence) if m.start()]
    turns = [at for at in turns if sentence[:at].count("(") <= sentence[:at].count(")")]
    sides = [sentence[start:end] for start, end in zip([0, *turns], [*turns, len(sentence)], strict=True)]
    clauses = []
    for clause in sides:
        told, bracket, aside = clause.partition("(")
        names_a_flight = CARRIER.search(aside) or ROUTE_OF_CODES_AMONG_WORDS.search(aside)
        clauses += [told, bracket + aside] if bracket and names_a_flight else [clause]
    return clauses


def _names_canada_itself(sentence: str) -> bool:
    folded = fold(sentence)
    return bool(CANADA.search(folded)) and not HEARSAY.search(folded)


def _hopes_for_rules(sentence: str) -> bool:
    """Whether a sentence asks if a law reaches the trouble, or tells what the passenger read or heard of one ("does
    the APPR cover a car rental at the airport?", "my sister says there's a Canadian law..."): the flights it names
    are the law's, no evidence that the trouble was a flight."""
    folded = fold(sentence)
    law = CANADIAN_RULES.search(CANADIAN_CARRIER.sub(" ", folded)) or RULES_HOPED_FOR.search(folded)  # not Air Canada
    asks = looks_like_question(sentence) or ASKING.search(folded)
    return bool(HEARSAY.search(folded) or (law and asks))


def _tells_flight_trouble(sentence: str) -> bool:
    """Whether a sentence tells what happened to a flight, a delay, a cancellation or a denied boarding, and names
    the flight or its carrier ("le vol Air France a eu 6 heures de retard"): weightier evidence than any one word.
    Not a question, nor a flight the passenger cancelled ("which insurer pays for the flights I cancelled?")."""
    folded = fold(sentence)
    if looks_like_question(sentence) or CANCELLED_BY_PASSENGER.search(folded):
        return False
    named = CARRIER.search(sentence) or FLIGHT_NAMED.search(folded)
    return bool(named) and EVENT_FAMILY in families(sentence)
