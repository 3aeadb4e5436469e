"""What identifies a passenger is taken out of their words before the log keeps them.

E-mail addresses, phone numbers, ticket numbers and booking references have shapes that patterns find
reliably. Names have none, so a name is taken out where the words around it announce one: "my name is",
"I'm Marie Tremblay", "Mr Smith", "my wife Sarah", a signature ("Thanks, Paul", or a last word after a
comma); then everywhere else that name appears in the conversation. A name written with no such cue stays;
the review page shows volunteers exactly what is kept, so they can see what slipped through.
"""

from __future__ import annotations

import re

EMAIL = "[e-mail]"
PHONE = "[phone]"
TICKET = "[ticket number]"
BOOKING = "[booking reference]"
NAME = "[name]"

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# 13-digit e-ticket numbers, often written as a 3-digit airline code and 10 digits.
_TICKET = re.compile(r"(?<![\w-])\d{3}[ -]?\d{10}(?![\w-])")
# At least 10 digits (the area code and the number, maybe a country code), or 7 with a separator.
_PHONE = re.compile(r"(?<![\w-])(?:\+?\d[\d ().-]{8,}\d|\d{3}[.-]\d{4})(?![\w-])")
# Six letters and digits mixed: how airlines write a booking reference (PNR). A flight number named as one
# ("flight AC1234", "vol TS123") is not a person's reference and stays.
_MIXED_CODE = re.compile(r"(?<![\w-])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{6}(?![\w-])")
_FLIGHT_BEFORE = re.compile(r"(?:flight|flt|vol|no\.?|number|numéro|#)\s*$", re.IGNORECASE)
# Six letters only after words that announce a booking reference.
_CUED_CODE = re.compile(
    r"(?i:booking|reservation|réservation|confirmation|record locator|locator|pnr|dossier|reference|référence|"
    r"ref|code)(?:\s+(?i:number|no\.?|code|numéro|de réservation|de dossier))?\s*[:#]?\s*(?:is\s+|est\s+)?"
    r"([A-Z0-9]{6})\b"
)
_WORD = r"[A-ZÀ-Ý][a-zà-ÿ'’-]+"
_NAME = rf"{_WORD}(?:\s+{_WORD}){{0,2}}"
_NAME_CUES = re.compile(
    rf"(?:(?i:my name is|my name's|name\s*:|passenger\s*:|je m'appelle|je m’appelle|mon nom est|nom\s*:)\s*"
    rf"|(?<![\w])(?:Mr|Mrs|Ms|Miss|Dr|Mme|Mlle|M)\.?\s+"
    rf"|(?i:thanks|thank you|regards|best|cheers|sincerely|merci|cordialement|signed|signé)\s*,?\s*\n?\s*-?\s*)"
    rf"({_NAME})"
)
_I_AM = re.compile(rf"\b(?i:i am|i'm|i’m|this is|moi c'est)\s+({_WORD}\s+{_WORD})")
_RELATIVE = re.compile(
    r"\b(?i:my|ma|mon|our|notre)\s+(?i:wife|husband|son|daughter|partner|spouse|mother|father|mom|mum|dad|"
    r"sister|brother|friend|colleague|boss|child|kid|baby|grandmother|grandfather|grandma|grandpa|aunt|uncle|"
    r"femme|mari|fils|fille|conjoint|conjointe|mère|père|maman|papa|sœur|soeur|frère|ami|amie|enfant|bébé|"
    r"grand-mère|grand-père|tante|oncle|collègue)\s*,?\s+"
    rf"({_WORD})"
)
# A single capitalised word that ends the text after a comma or a dash: a signature ("..., Paul", "- Anne").
_SIGN_OFF = re.compile(rf"(?:,|\n|^|\s-|\s—)\s*({_WORD})\s*[.!]?\s*$")
# Capitalised words after "I'm" that are not a name: carriers, places, and how passengers describe themselves.
_NOT_NAMES = set(
    "Air Canada Westjet WestJet Porter Flair Sunwing Transat Swoop Lynx Jazz Aeroplan Canadian Canadien "
    "Canadienne Toronto Montreal Montréal Vancouver Calgary Ottawa Halifax Quebec Québec Flying Travelling "
    "Traveling Stuck Still Very Really Not So Now Here There The A An In At On Thanks Merci Please Help Canada "
    "France Paris London Europe Mexico Cancun Florida Thank Yes Please Asap".split()
)


def redact(text: str) -> str:
    """`text` with e-mail addresses, ticket numbers, phone numbers, booking references and announced names
    replaced by a bracketed word saying what was there."""
    return redact_turns([text])[0]


def redact_turns(turns: list[str]) -> list[str]:
    """Each turn redacted; a name announced in one turn is taken out wherever it appears in any of them
    ("my name is Marie Tremblay" ... "Marie again: ...")."""
    names: set[str] = set()
    redacted = [_redact_one(turn, names) if turn else turn for turn in turns]
    if not names:
        return redacted
    again = re.compile(r"(?<![\w\[])(?:" + "|".join(re.escape(name) for name in sorted(names)) + r")(?![\w\]])")
    return [again.sub(NAME, turn) for turn in redacted]


def _redact_one(text: str, names: set[str]) -> str:
    text = _EMAIL.sub(EMAIL, text)
    text = _TICKET.sub(TICKET, text)
    text = _PHONE.sub(lambda m: PHONE if _is_phone(m.group()) else m.group(), text)
    text = _CUED_CODE.sub(lambda m: m.group().replace(m.group(1), BOOKING), text)
    text = _MIXED_CODE.sub(lambda m: m.group() if _FLIGHT_BEFORE.search(text[: m.start()]) else BOOKING, text)
    for pattern in (_NAME_CUES, _I_AM, _RELATIVE, _SIGN_OFF):
        text = pattern.sub(lambda m: _replace_group(m, _name(m.group(1), names)), text)
    return text


def _is_phone(candidate: str) -> bool:
    digits = sum(ch.isdigit() for ch in candidate)
    return 10 <= digits <= 15 or (digits == 7 and len(candidate) == 8)


def _name(candidate: str, names: set[str]) -> str:
    """NAME for a person's name (each of its words is remembered in `names`); a carrier or a place stays."""
    words = candidate.split()
    if not words or words[0] in _NOT_NAMES:
        return candidate
    names.update(word for word in words if len(word) > 2 and word not in _NOT_NAMES)
    return NAME


def _replace_group(match: re.Match, replacement: str) -> str:
    start, end = match.span(1)
    whole = match.group()
    return whole[: start - match.start()] + replacement + whole[end - match.start() :]
