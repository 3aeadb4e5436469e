"""What identifies a passenger is taken out of their words before they leave the machine or are kept.

Three places use it: the review log and the question bank keep redacted words (`redact`, `redact_turns`), and
query understanding sends a language model the conversation with each identifier replaced by a typed
placeholder (`Pseudonyms`), reading the model's reply back with the passenger's own words.

Phone numbers are found by Google's libphonenumber (`phonenumbers`), valid numbers only, written the Canadian,
French or British way or internationally; card numbers by their length and the Luhn check; e-mail addresses,
e-ticket numbers (13 digits), booking references (six letters and digits) and loyalty numbers (digits after
the programme's name) by their shapes. Names have none, so a name is taken out where the words around it
announce one: "my name is", "I'm Marie Tremblay", "Mr Smith", "my wife Sarah", a signature ("Thanks, Paul",
or a last word after a comma); then everywhere else that name appears in the conversation. A name written
with no such cue stays; the review page shows volunteers exactly what is kept, so they can see what slipped
through. Carriers, airports, flight numbers ("AC 123", "WS1234"), amounts, dates and durations stay: the
search needs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import phonenumbers

EMAIL = "[e-mail]"
PHONE = "[phone]"
TICKET = "[ticket number]"
BOOKING = "[booking reference]"
NAME = "[name]"
CARD = "[card number]"
LOYALTY = "[loyalty number]"
KINDS = (EMAIL, PHONE, TICKET, BOOKING, NAME, CARD, LOYALTY)

# How passengers write numbers: Canada and the United States share one plan; France and Britain for travellers
# from there. A number written with its country code ("+44 ...", "011 33 ...") is found whatever the region.
PHONE_REGIONS = ("CA", "FR", "GB")

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# 13 to 19 digits, maybe in groups: an e-ticket number (13) or a payment card (13 to 19, Luhn-checked).
_DIGIT_RUN = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
_CARD_CUE = re.compile(
    r"(?i:card|carte|visa|mastercard|master card|amex|american express|credit|crédit|debit|débit)\W+(?:\w+\W+){0,4}$"
)
_TICKET_CUE = re.compile(
    r"(?i:e-?ticket|ticket|billet|billet électronique)\s*(?:(?i:number|no\.?|numéro|n°|#)\s*)?[:#]?\s*"
    r"(?:(?i:is|est)\s+)?"
)
_TICKET_AFTER_CUE = re.compile(r"\d(?:[ -]?\d){9,13}(?![\w-])")
_LOYALTY = re.compile(
    r"(?i:aeroplan|aéroplan|westjet rewards|rewards|flying blue|frequent fl(?:y|i)er|loyalty|fidélité|air miles|"
    r"airmiles|skymiles|avios|executive club|porter vip|viaggio|member(?:ship)?|membre)"
    r"[^\d\n]{0,30}?(?<![\w-])([A-Z]{0,3}\d(?:[ -]?\d){5,14})(?![\w-])"
)
# Six letters and digits mixed: how airlines write a booking reference (PNR). A flight number is written the
# same way ("AC1234", "WS1234") and stays: a two-character airline code, one to four digits.
_MIXED_CODE = re.compile(r"(?<![\w-])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{6}(?![\w-])")
_FLIGHT_NUMBER = re.compile(r"(?i:[A-Z]{2}|[A-Z]\d|\d[A-Z])\d{1,4}[A-Z]?")
_FLIGHT_BEFORE = re.compile(r"(?:flight|flt|vol|no\.?|number|numéro|#)\s*$", re.IGNORECASE)
# Six letters and digits after words that announce a booking reference, whatever their shape.
_CUED_CODE = re.compile(
    r"(?i:booking|reservation|réservation|confirmation|record locator|locator|pnr|dossier|reference|référence|"
    r"ref|code)(?:\s+(?i:number|no\.?|code|numéro|de réservation|de dossier|de confirmation))?\s*[:#]?\s*"
    r"(?:(?i:is|est)\s+)?([A-Z0-9]{6}|(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{6})\b"
)
# A local number (seven digits) after words that announce a phone number.
_LOCAL_PHONE = re.compile(
    r"(?i:phone|call|cell|mobile|tel|tél|téléphone|portable|joindre|appelez|appeler|text me|texto)\b[^\d\n]{0,20}?"
    r"(?<![\w-])(\d{3}[ .-]\d{4})(?![\w-])"
)
_WORD = r"[A-ZÀ-Ý][a-zà-ÿ'’-]+"
_NAME = rf"{_WORD}(?:\s+{_WORD}){{0,2}}"
_NAME_CUES = re.compile(
    rf"(?:(?i:my name is|my name's|name\s*:|passenger\s*:|je m'appelle|je m’appelle|mon nom est|nom\s*:|"
    rf"de la part de|signed by|signé par)\s*"
    rf"|(?<![\w])(?:Mr|Mrs|Ms|Miss|Dr|Mme|Mlle|M)\.?\s+"
    rf"|(?i:thanks|thank you|regards|best|cheers|sincerely|merci|cordialement|salutations|signed|signé)"
    rf"\s*,?\s*\n?\s*-?\s*)"
    rf"({_NAME})"
)
_I_AM = re.compile(rf"\b(?i:i am|i'm|i’m|this is|moi c'est|je suis|c'est)\s+({_WORD}\s+{_WORD})")
_HERE = re.compile(rf"(?:^|[.!?]\s+)({_WORD}\s+{_WORD})\s+(?i:here|ici)\b")
_RELATIVE = re.compile(
    r"\b(?i:my|ma|mon|mes|our|notre|nos)\s+(?i:wife|husband|son|daughter|partner|spouse|mother|father|mom|mum|"
    r"dad|sister|brother|friend|colleague|boss|child|kid|baby|grandmother|grandfather|grandma|grandpa|aunt|"
    r"uncle|femme|épouse|mari|époux|fils|fille|conjoint|conjointe|mère|père|maman|papa|sœur|soeur|frère|ami|"
    r"amie|enfant|bébé|grand-mère|grand-père|tante|oncle|collègue)\s*,?\s+"
    rf"({_WORD})"
)
# A single capitalised word that ends the text after a comma or a dash: a signature ("..., Paul", "- Anne").
_SIGN_OFF = re.compile(rf"(?:,|\n|\s-|\s—)\s*({_WORD})\s*[.!]?\s*$")
# Capitalised words after "I'm" that are not a name: carriers, places, and how passengers describe themselves.
_NOT_NAMES = set(
    "Air Canada Westjet WestJet Porter Flair Sunwing Transat Swoop Lynx Jazz Aeroplan Canadian Canadien "
    "Canadienne Toronto Montreal Montréal Vancouver Calgary Ottawa Halifax Quebec Québec Flying Travelling "
    "Traveling Stuck Still Very Really Not So Now Here There The A An In At On Thanks Merci Please Help Canada "
    "France Paris London Europe Mexico Cancun Florida Thank Yes Please Asap Je Il Elle Nous Vous Mon Ma Mes "
    "Le La Les Un Une Bonjour Hello Hi Dear Madame Monsieur Sir".split()
)
_PLACEHOLDER = re.compile(r"\[(" + "|".join(re.escape(kind[1:-1]) for kind in KINDS) + r")(?: (\d+))?\]")


@dataclass(frozen=True)
class Identifier:
    """What identifies a passenger in a text: its placeholder (`kind`, e.g. PHONE) and where it stands."""

    kind: str
    start: int
    end: int
    text: str


def redact(text: str) -> str:
    """`text` with every identifier replaced by the placeholder saying what was there."""
    return redact_turns([text])[0]


def redact_turns(turns: list[str]) -> list[str]:
    """Each turn redacted; a name announced in one turn is taken out wherever it appears in any of them
    ("my name is Marie Tremblay" ... "Marie again: ...")."""
    found = find_in_turns(turns)
    return [_replace(turn, ids, lambda identifier: identifier.kind) for turn, ids in zip(turns, found, strict=True)]


def find_in_turns(turns: list[str]) -> list[list[Identifier]]:
    """The identifiers of each turn, names announced in any turn found in all of them."""
    names: set[str] = set()
    for turn in turns:
        find_identifiers(turn, names)
    return [find_identifiers(turn, names) for turn in turns]


def find_identifiers(text: str, names: set[str] | None = None) -> list[Identifier]:
    """The identifiers in `text`, in order, none overlapping. Names announced in it are added to `names`; the
    names already there are found wherever they stand."""
    names = set() if names is None else names
    found: list[Identifier] = []

    def add(kind: str, start: int, end: int) -> None:
        if start < end and not any(start < other.end and other.start < end for other in found):
            found.append(Identifier(kind, start, end, text[start:end]))

    for match in _EMAIL.finditer(text):
        add(EMAIL, *match.span())
    for match in _DIGIT_RUN.finditer(text):
        if (kind := _digit_run_kind(match.group(), text[: match.start()])) is not None:
            add(kind, *match.span())
    for cue in _TICKET_CUE.finditer(text):
        if match := _TICKET_AFTER_CUE.match(text, cue.end()):
            add(TICKET, *match.span())
    for match in _LOYALTY.finditer(text):
        add(LOYALTY, *match.span(1))
    for match in _CUED_CODE.finditer(text):
        add(BOOKING, *match.span(1))
    for region in PHONE_REGIONS:
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            add(PHONE, match.start, match.end)
    for match in _LOCAL_PHONE.finditer(text):
        add(PHONE, *match.span(1))
    for match in _MIXED_CODE.finditer(text):
        if not (_FLIGHT_NUMBER.fullmatch(match.group()) or _FLIGHT_BEFORE.search(text[: match.start()])):
            add(BOOKING, *match.span())
    for pattern in (_NAME_CUES, _I_AM, _HERE, _RELATIVE, _SIGN_OFF):
        for match in pattern.finditer(text):
            if _is_name(match.group(1), names):
                add(NAME, *match.span(1))
    if names:
        known = "(?:" + "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True)) + ")"
        again = re.compile(rf"(?<![\w\[]){known}(?:\s+{known})*(?![\w\]])")
        for match in again.finditer(text):
            add(NAME, *match.span())
    return sorted(found, key=lambda identifier: identifier.start)


class Pseudonyms:
    """A conversation's identifiers on their way to a language model: each distinct one gets its own typed
    placeholder ("[name]", then "[name 2]" for another name), the same in every message of the conversation,
    so the model can tell who is who and its reply can be read back with the passenger's own words."""

    def __init__(self) -> None:
        self._placeholders: dict[tuple[str, str], str] = {}
        self._originals: dict[str, str] = {}
        self._names: set[str] = set()

    def hide(self, turns: list[str]) -> list[str]:
        """Each turn with its identifiers replaced by their placeholders."""
        for turn in turns:
            find_identifiers(turn, self._names)
        return [_replace(turn, find_identifiers(turn, self._names), self._placeholder) for turn in turns]

    def restore(self, text: str) -> str:
        """The model's `text` with each placeholder of this conversation back to the passenger's words; one the
        conversation never had stays as written."""
        return _PLACEHOLDER.sub(lambda match: self._originals.get(match.group(), match.group()), text)

    def _placeholder(self, identifier: Identifier) -> str:
        key = (identifier.kind, identifier.text.casefold())
        if identifier.kind == NAME:  # "Marie" after "Marie Tremblay" is the same person
            key = next((known for known in self._placeholders if _part_of_name(key, known)), key)
        if key not in self._placeholders:
            count = sum(kind == identifier.kind for kind, _ in self._placeholders) + 1
            placeholder = identifier.kind if count == 1 else f"{identifier.kind[:-1]} {count}]"
            self._placeholders[key] = placeholder
            self._originals[placeholder] = identifier.text
        return self._placeholders[key]


def luhn_valid(digits: str) -> bool:
    """The check every payment card number passes (and few other numbers do)."""
    total = 0
    for position, digit in enumerate(int(ch) for ch in reversed(digits)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _digit_run_kind(run: str, before: str) -> str | None:
    digits = "".join(ch for ch in run if ch.isdigit())
    if _CARD_CUE.search(before[-60:]) or (len(digits) > 13 and luhn_valid(digits)):
        return CARD
    return TICKET if len(digits) == 13 else None


def _is_name(candidate: str, names: set[str]) -> bool:
    """A person's name (each of its words is remembered in `names`), not a carrier or a place."""
    words = candidate.split()
    if not words or words[0] in _NOT_NAMES:
        return False
    names.update(word for word in words if len(word) > 2 and word not in _NOT_NAMES)
    return True


def _part_of_name(name: tuple[str, str], known: tuple[str, str]) -> bool:
    return known[0] == NAME and set(name[1].split()) <= set(known[1].split())


def _replace(text: str, identifiers: list[Identifier], placeholder) -> str:
    pieces, at = [], 0
    for identifier in identifiers:
        pieces += [text[at : identifier.start], placeholder(identifier)]
        at = identifier.end
    return "".join([*pieces, text[at:]])
