"""Whether a conversation says where the flight went, and what a passenger's answer to that adds to it.

Canada's passenger protection rules apply to flights to, from and within Canada, so the page asks when the
conversation names no place at all. Any named place counts, Canadian or foreign: the point is only that the
passenger has said something the law can turn on. The gazetteer is short on purpose; a place it misses only
means the page asks a question the passenger can ignore.
"""

from __future__ import annotations

import re
from typing import Literal

from kb.text import detect_language, fold

ScopeChoice = Literal["within", "to_or_from"]

_CANADIAN_PLACES = (
    "toronto|montreal|vancouver|calgary|edmonton|ottawa|winnipeg|halifax|quebec|victoria|kelowna|saskatoon|regina"
    "|st\\.? john'?s|saint john|fredericton|moncton|charlottetown|thunder bay|sudbury|windsor|hamilton|kitchener"
    "|waterloo|abbotsford|kamloops|prince george|prince rupert|whitehorse|yellowknife|iqaluit|gander|deer lake"
    "|goose bay|fort mcmurray|grande prairie|nanaimo|comox|penticton|cranbrook|fort st\\.? john|terrace|sept-iles"
    "|rouyn-noranda|val-d'or|bagotville|saguenay|mont-tremblant|sydney|london|pearson|billy bishop|trudeau"
    "|ontario|british columbia|alberta|manitoba|saskatchewan|nova scotia|new brunswick|prince edward island"
    "|newfoundland|labrador|yukon|nunavut|northwest territories"
)
_FOREIGN_PLACES = (
    "united states|america|usa|mexico|mexique|cancun|punta cana|dominican|cuba|havana|varadero|jamaica|montego bay"
    "|bahamas|barbados|aruba|caribbean|antilles|costa rica|puerto vallarta|cabo|los cabos|florida|floride|orlando"
    "|miami|fort lauderdale|tampa|las vegas|los angeles|new york|boston|chicago|seattle|san francisco|denver"
    "|dallas|houston|phoenix|atlanta|hawaii|honolulu|europe|paris|londres|amsterdam|frankfurt|munich|rome|milan"
    "|madrid|barcelona|barcelone|lisbon|lisbonne|porto|dublin|reykjavik|iceland|france|england|angleterre"
    "|germany|allemagne|italy|italie|spain|espagne|portugal|ireland|irlande|greece|grece|athens|istanbul|turkey"
    "|india|inde|delhi|mumbai|china|chine|beijing|shanghai|hong kong|tokyo|japan|japon|seoul|korea|manila"
    "|philippines|australia|australie|dubai|doha|lima|peru|perou|bogota|colombia|colombie|brazil|bresil|africa"
    "|afrique|asia|asie|morocco|maroc|algeria|algerie|haiti|etats-unis"
)
_PLACE = re.compile(rf"\b(?:{_CANADIAN_PLACES}|{_FOREIGN_PLACES})\b")
# "Canada" alone is not a place when it is part of a carrier's or a law's name.
_CANADA = re.compile(r"\bcanada\b(?<!\bair canada)(?! transportation act)")
_SCOPE_WORDS = re.compile(
    r"\b(?:domestic|international|transborder|overseas|abroad|cross-border|interieur|internationale?"
    r"|transfrontalier|a l'etranger)\b"
)
# Airport codes are written in capitals: every Canadian one starts with Y; a few foreign ones people often name.
_AIRPORT_CODE = re.compile(
    r"\b(?:Y[A-Z]{2}|LHR|LGW|CDG|ORY|JFK|LGA|EWR|LAX|SFO|SEA|ORD|MIA|MCO|FLL|TPA|LAS|BOS|DFW|ATL|DEN|PHX|HNL"
    r"|AMS|FRA|MUC|FCO|MAD|BCN|LIS|DUB|KEF|DXB|DOH|HND|NRT|ICN|HKG|PEK|PVG|DEL|BOM|MEX|CUN|PUJ|SJO|PVR|SJD"
    r"|MBJ|HAV|VRA|US|USA|UK|EU)\b"
)
_CANADIAN_PLACE = re.compile(rf"\b(?:{_CANADIAN_PLACES})\b")
_CANADIAN_RULES = re.compile(
    r"\bcanad\w*|\b(?:appr|cta|otc|rppa|air passenger protection|protection des passagers aeriens"
    r"|office des transports)\b"
)
_CANADIAN_CODE = re.compile(r"\bY[A-Z]{2}\b")
_ROUTE_OF_CODES = re.compile(r"\b[A-Z]{3}\s*(?:-|–|→|->|/|>|to)\s*[A-Z]{3}\b")

SCOPE_SENTENCES: dict[str, dict[ScopeChoice, str]] = {
    "en": {"within": "The flight was within Canada.", "to_or_from": "The flight was to or from Canada."},
    "fr": {"within": "Le vol était à l'intérieur du Canada.", "to_or_from": "Le vol partait du Canada ou y arrivait."},
}


def says_where_flight_went(turns: list[str]) -> bool:
    """True when any turn names a place, an airport code, or says domestic/international/within Canada."""
    for turn in turns:
        folded = fold(turn)
        if _PLACE.search(folded) or _CANADA.search(folded) or _SCOPE_WORDS.search(folded):
            return True
        if _AIRPORT_CODE.search(turn) or _ROUTE_OF_CODES.search(turn):
            return True
    return False


def names_canada(text: str) -> bool:
    """True when the text names Canada, a Canadian place or airport, or Canada's rules or agency."""
    folded = fold(text)
    return bool(_CANADIAN_PLACE.search(folded) or _CANADIAN_RULES.search(folded) or _CANADIAN_CODE.search(text))


def with_flight_scope(turns: list[str], choice: ScopeChoice) -> list[str]:
    """The dialogue with the passenger's answer added to the last message, in that message's language.

    Added to the last message rather than as a turn of its own, so the question searched is still the
    passenger's own question, now saying where the flight went.
    """
    if not turns:
        raise ValueError("There is no message to add the flight's scope to.")
    sentence = SCOPE_SENTENCES[detect_language(turns[-1])][choice]
    return [*turns[:-1], f"{turns[-1].rstrip()} {sentence}"]
