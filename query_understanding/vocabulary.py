"""The issues air passengers raise, as data: cue patterns (English and French) and the labels built from them.

A topic is one cue pattern; its family says which topics speak of the same thing, so that the decomposer can
tell one issue from another and give each question the sentences that describe it. ISSUES combine topics into
the labels a volunteer would list for a message; the decomposition check maps questions to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# topic -> (family, cue pattern)
TOPICS: dict[str, tuple[str, str]] = {
    "delay": (
        "event",
        r"\bdelay(?:s|ed)?\b|\blater?\b|\bsupposed to (?:go|leave|depart|land|arrive)\b|\bstuck\b|\bstranded\b"
        r"|\bovernight\b|\bwaited\b|\bpushed\b[^.?!]{0,50}\bback\b|\bhours? behind\b|\bretard\w*|\bcoincée?s?\b"
        r"|\b\d+(?:[.,]\d+)?\s*(?:hours?|hrs?)\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve) hours\b"
        r"|\bheures\b",
    ),
    "cancellation": ("event", r"\bcancel\w*|\bannul\w*"),
    "denied_boarding": (
        "event",
        r"\bbump(?:ed|ing)?\b|\bover-?sold\b|\bover-?book\w*|\b(?:denied|refused) boarding\b"
        r"|\b(?:didn'?t|wouldn'?t) let (?:me|us) board|\brefus d'embarquement|\bembarquement refusé|\bsurréserv\w*",
    ),
    "tarmac": (
        "event",
        r"\btarmac\b|\b(?:stuck|sat|kept|trapped|held|waited) (?:\w+ ){0,2}(?:on|in) the (?:plane|aircraft|runway)\b"
        r"|\bsur la piste\b|\bdans l'avion pendant\b",
    ),
    "schedule_change": (
        "event",
        r"\bschedule change|\breschedul\w*|\bchanged (?:our|my|the) flight|\bnow (?:leaves|departs|lands)\b"
        r"|\bchangement d'horaire|\bvol (?:a été )?(?:modifié|devancé|changé)",
    ),
    "compensation": (
        "compensation",
        r"\bcompensat\w*|\bowed?\b|\bexpenses?\b|\breceipts?\b|\bcosts? (?:covered|back|reimbursed)\b|\bentitled\b"
        r"|\bindemni\w*|\bdédommag\w*|\bpay (?:me|us)\b(?! back)|\b(?:give|get|owe) (?:me |us )?anything\b|\bpayout\b"
        r"|\bhow much (?:money|cash|are|is|do|will|would|should|can)\b|(?<!food )(?<!meal )\bvouchers?\b|\bcash\b",
    ),
    "meals_hotel": (
        "meals",
        r"\bmeals?\b|\bfood\b|\bbreakfast\b|\blunch\b|\bdinner\b|\bsupper\b|\bhotels?\b|\bsandwich\w*|\bwater\b|\bdrinks?\b|\bsnacks?\b|\bfed\b|\bfeed\b"
        r"|\bmotels?\b|\blodging\b|\baccommodation\w*|\brepas\b|\bnourriture\b|\bhôtel\w*|\bhébergement\b|\bboissons?\b|\bmanger\b",
    ),
    "rebooking": (
        "rebooking",
        r"\bre-?book\w*|\banother (?:flight|airline|carrier)\b|\bother airlines?\b|\bnext (?:available )?flight\b"
        r"|\balternate (?:flight|travel|arrangements?)\b|\bput (?:us|me) on\b|\bréachemin\w*"
        r"|\bautre (?:vol|transporteur|compagnie)\b|\bnouveau vol\b",
    ),
    "refund": (
        "refund",
        r"\brefund\w*|\bmoney back\b|\bpay (?:me|us) back\b|\breimburs\w*|\bfees? back\b"
        r"|\bget (?:that|those|it|them) back\b|\bcredit\b|\brembours\w*",
    ),
    "communication": (
        "communication",
        r"\bupdat\w*|\binform(?:ed|ation)?\b|\bannounce\w*|\b(?:nobody|no one|nobody ever) told\b|\btold us nothing\b"
        r"|\bkeep (?:you|us|me|passengers) (?:updated|posted|informed)\b|\bcommuniqu\w*|\binformé\w*|\baviser\b",
    ),
    "baggage": (
        "baggage",
        r"\bbag(?:s|gage)?\b|\bluggage\b|\bsuitcases?\b|\bstrollers?\b|\bcar seats?\b|\bbackpacks?\b|\bcarry-?ons?\b"
        r"|\bpersonal items?\b|\bvalises?\b|\bbagages?\b|\bpoussettes?\b",
    ),
    "bag_lost": (
        "baggage",
        r"\blost\b|\bnever (?:showed|arrived|came|turned)\b|\bmissing\b|\bbeing traced\b|\btracing\b"
        r"|\bperdue?s?\b|\bintrouvables?\b|\bégarée?s?\b",
    ),
    "bag_delayed": (
        "baggage",
        r"\bdelayed (?:my |our |the )?(?:bag|baggage|luggage|suitcase)s?\b"
        r"|\b(?:bag|baggage|luggage|suitcase|valise|bagage)s?\b[^.?!]{0,80}?"
        r"\b(?:late|days? later|delayed|(?:didn'?t|did not|hasn'?t|has not|not) (?:arrive|arrived|come|shown up)"
        r"|en retard|n'est pas arrivée?|(?:\d+|deux|trois|quatre|cinq) jours)\b",
    ),
    "damage": (
        "damage",
        r"\bdamag\w*|\bbroken?\b|\bsnapped\b|\bshattered\b|\bscratch\w*|\bbusted\b|\bcrack\w*|\btorn\b|\bripped\b"
        r"|\bbent\b|\bcrushed\b|\bsmashed\b|\bdented\b"
        r"|\bsoaked\b|\bdéchir\w*|\bendommag\w*|\bbrisée?s?\b|\bcassée?s?\b|\babîmée?s?\b",
    ),
    "instrument": (
        "instrument",
        r"\binstruments?\b|\bviol(?:in|a)s?\b|\bguitars?\b|\bcellos?\b|\btrumpets?\b|\bsax(?:ophone)?s?\b"
        r"|\bflutes?\b|\bclarinets?\b|\bukuleles?\b|\bdrums?\b|\bviolon\w*|\bguitares?\b",
    ),
    "children": (
        "children",
        r"\bkids?\b|\bchild(?:ren)?\b|\bsons?\b|\bdaughters?\b|\btoddlers?\b|\bbab(?:y|ies)\b|\binfants?\b"
        r"|\b\d{1,2}[- ]?(?:year|yr)s?[- ]old\b|\benfants?\b|\bfils\b|\bfilles?\b|\bbébés?\b",
    ),
    "seating": (
        "children",
        r"\bseat(?:s|ed|ing)?\b(?! ?belt)|\brows?\b|\bsit (?:together|next|beside|with)\b|\bnext to\b|\bbeside\b"
        r"|\bsièges?\b|\bassise?s?\b|\bà côté\b|\bensemble\b",
    ),
    "disability": (
        "disability",
        r"\bwheel ?chairs?\b|\bmobility (?:aid|device)s?\b|\bscooters?\b|\bservice (?:dog|animal)s?\b|\bguide dogs?\b"
        r"|\bdisabilit\w*|\bdisabled\b|\bblind\b|\bdeaf\b|\b(?:special|wheelchair|mobility) assistance\b"
        r"|\baccessib\w*|\boxygen\b|\bfauteuils? roulants?\b|\bhandicap\w*|\bchiens? (?:d'assistance|guides?)\b"
        r"|\bmobilité réduite\b",
    ),
    "deadline": (
        "deadline",
        r"\bdeadlines?\b|\btime limits?\b|\bhow long do (?:i|we|they) have\b|\bhow (?:much|long) time\b|\btoo late\b"
        r"|\blimitation period\b|\bhow many days\b|\bdélais?\b|\bjusqu'à quand\b|\bcombien de temps\b|\btrop tard\b",
    ),
    "complaint": (
        "complaint",
        r"\bCTA\b|\btransportation agency\b|\bthe agency\b|\bfile a complaint\b"
        r"|\b(?:any)?where\b[^.?!]{0,25}\bcomplain\w*|\bescalat\w*|\b(?:haven|hasn)'?t (?:answered|responded|replied)\b"
        r"|\bnever (?:replie[sd]|repl(?:y|ied)|answer(?:s|ed)?|respond(?:s|ed)?)\b"
        r"|\bno (?:answer|response|reply)\b|\bignor(?:ed|ing)\b"
        r"|\bOffice des transports\b|\bOTC\b|\bplainte\b|\brecours\b",
    ),
}

EVENT_FAMILY = "event"
# Families of the flight itself: their sentences describe one situation, shared by every flight question.
FLIGHT_FAMILIES = frozenset({"event", "compensation", "meals", "rebooking", "refund", "communication"})
# Families that say what is asked, not about which situation: any described situation may be the one meant.
GENERIC_FAMILIES = frozenset({"deadline", "complaint", "damage"})

_PATTERNS = {topic: re.compile(pattern, re.IGNORECASE) for topic, (_, pattern) in TOPICS.items()}


def topics(text: str) -> set[str]:
    return {topic for topic, pattern in _PATTERNS.items() if pattern.search(text)}


def families(text: str) -> set[str]:
    return {TOPICS[topic][0] for topic in topics(text)}


def cue_words(text: str, wanted: set[str]) -> list[str]:
    """The words of `text` that matched the wanted topics, in order of appearance."""
    found = [match for topic in wanted for match in _PATTERNS[topic].finditer(text)]
    return [match.group(0) for match in sorted(found, key=lambda match: match.start())]


@dataclass(frozen=True)
class Issue:
    """A label holds when every group in `all_of` has a topic present and no topic of `none_of` is."""

    all_of: tuple[frozenset[str], ...]
    none_of: frozenset[str] = frozenset()


def _issue(*all_of: str, none_of: str = "") -> Issue:
    return Issue(tuple(frozenset(group.split()) for group in all_of), frozenset(none_of.split()))


ISSUES: dict[str, Issue] = {
    "delay_compensation": _issue(
        "delay cancellation schedule_change", "compensation", none_of="denied_boarding bag_delayed"
    ),
    "denied_boarding": _issue("denied_boarding"),
    "tarmac_delay": _issue("tarmac"),
    "cancellation_rebooking": _issue("rebooking"),
    "refund": _issue("refund"),
    "meals_hotel": _issue("meals_hotel", none_of="tarmac"),
    "communication": _issue("communication"),
    "baggage_lost": _issue("baggage", "bag_lost"),
    "baggage_delayed": _issue("bag_delayed"),
    "baggage_damaged": _issue("baggage instrument", "damage"),
    "musical_instrument": _issue("instrument"),
    "child_seating": _issue("children", "seating"),
    "disability_assistance": _issue("disability"),
    "claim_deadline": _issue("deadline"),
    "cta_complaint": _issue("complaint"),
}


def issue_labels(text: str) -> set[str]:
    present = topics(text)
    return {
        label
        for label, issue in ISSUES.items()
        if all(group & present for group in issue.all_of) and not issue.none_of & present
    }
