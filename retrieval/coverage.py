"""Whether a dialogue is about what the knowledge base covers: air travel under Canadian law.

The law in the knowledge base speaks of flights, carriers and baggage (and, for persons with disabilities,
of trains, buses and ferries too). A message about a train delay or a hotel booking, or one that asks
only under a foreign regime such as the EU's Regulation 261/2004, would otherwise get the nearest sections
about flights, which look relevant and are not; it is better to say that the knowledge base does not
cover it. A foreign regime named beside Canada ("EU261 or the Canadian rules?", a flight to Toronto) is
still a Canadian question, and a hotel, a meal or a taxi while a flight is disrupted is what the carrier
owes under the Air Passenger Protection Regulations, not another kind of service.
"""

from __future__ import annotations

import re
from enum import StrEnum

from kb.text import fold
from query_understanding.flight_scope import names_canada

AIR_TRAVEL = re.compile(
    r"\b(flights?|fl(y|ew|ying|own)|plane|aircraft|airplane|air ?lines?|airport|carrier|boarding|board(ed)?|"
    r"tarmac|runway|gate|pilot|crew|layover|connecting|connection|cabin|seats?|bags?|baggage|luggage|suitcase|"
    r"carry-on|carousel|stroller|cta|bumped|overbooked|oversold|appr|vols?|avion|aerien(ne)?s?|aeroport|"
    r"transporteur|embarquement|valises?|bagages?|air canada|westjet|porter|flair|sunwing|transat|swoop|lynx|"
    r"jazz)\b"
)
ROUTE_OF_CODES = re.compile(r"\b[A-Z]{3} ?(?:->|→|-|/|to) ?[A-Z]{3}\b")  # "YYC to YVR"; never "had to get"
# words of a disruption that any kind of travel or booking shares: neither for nor against air travel
DISRUPTION = re.compile(
    r"\b(passengers?|delay(ed|s)?|late|cancel(led|ed|lation)?|compensation|refund(ed)?|claims?|retard|"
    r"annul\w*|indemni\w*)\b"
)
OTHER_SERVICE = re.compile(
    r"\b(trains?|rail|railway|via rail|amtrak|bus(es)?|coach|ferry|ferries|cruise|ship|booking\.com|"
    r"airbnb|expedia|car rental|rental car|concert|ticketmaster)\b"
)
# What a carrier provides or pays for while a flight is disrupted: another service only when no flight is named.
STAY_AND_RIDE = re.compile(r"\b(hotels?|motels?|hebergement|accommodation|rooms?|uber|taxis?|meals?|repas)\b")
DISABILITY = re.compile(r"\b(disab\w*|wheelchair|mobility|service (dog|animal)|handicap\w*|fauteuil)\b")
FOREIGN_REGIME = re.compile(
    r"\b(eu ?261|ec ?261|uk ?261|261/2004|eu (law|rules|regulation)|european (law|rules|regulation)|"
    r"(us|u\.s\.|american) (dot|department of transportation)|montreal protocol no)\b"
)


class OutsideCoverage(StrEnum):
    """Why a dialogue is beyond the knowledge base; the value is what the review log records."""

    FOREIGN_REGIME = "foreign regime"
    OTHER_SERVICE = "another kind of service"
    NOT_AIR_TRAVEL = "not about air travel"


def outside_coverage(dialogue: str) -> OutsideCoverage | None:
    """Why the dialogue falls outside the knowledge base, or None when it may be covered."""
    text = fold(dialogue)
    if FOREIGN_REGIME.search(text) and not names_canada(dialogue):
        return OutsideCoverage.FOREIGN_REGIME
    air = len(AIR_TRAVEL.findall(text)) + len(ROUTE_OF_CODES.findall(dialogue))
    other = len(OTHER_SERVICE.findall(text)) + (0 if air else len(STAY_AND_RIDE.findall(text)))
    if other > air and not DISABILITY.search(text):
        return OutsideCoverage.OTHER_SERVICE
    if not air and not DISRUPTION.search(text):
        return OutsideCoverage.NOT_AIR_TRAVEL
    return None
