"""Whether a message is written in a language the product does not read (it reads English and French only).

The knowledge base holds the law in English and French, and the rules that read a message know those two
languages. A message in another language would otherwise be told it is "not about air travel"; it is better
to say which languages work. A message mostly in a script other than the Latin one is in another language;
a Latin-script message is when it uses another language's air-travel words and more of that language's
common words than English or French ones.
"""

from __future__ import annotations

import re
import unicodedata

# Spanish, Portuguese, Italian, German, Dutch, Polish, Tagalog, Romanian and Turkish, folded (no accents).
_OTHER_AIR_WORDS = set(
    "vuelo vuelos aerolinea aerolineas equipaje maleta maletas aeropuerto retraso retrasado cancelaron "
    "reembolso indemnizacion voo voos companhia bagagem aeroporto atraso atrasado cancelaram indenizacao "
    "volo voli bagaglio bagagli valigia ritardo cancellato rimborso risarcimento flug fluges fluggesellschaft "
    "gepack koffer flughafen verspatung verspatet annulliert storniert erstattung entschadigung vlucht "
    "vluchten luchtvaartmaatschappij luchthaven vliegveld vertraging vertraagd geannuleerd terugbetaling "
    "samolot bagaz walizka lotnisko opoznienie odwolany odszkodowanie eroplano bagahe paliparan naantala "
    "kinansela lipad zbor zborul valiza intarziere anulat ucus ucak valiz havalimani rotar iptal".split()
)
_OTHER_COMMON_WORDS = set(
    "el los las mi mis y por para con fue pero muy hay del al o um uma meu minha foi nao com sem para "
    "il lo gli mio mia e ho sono stato non ich mein meine mit und ist war wurde nicht der die das ein eine "
    "het een mijn ik en niet werd met mnie moj moja jest byl nie ako ang ko sa ng na hindi ay si eu meu "
    "am fost benim ve bir icin zostal".split()
)
_ENGLISH_FRENCH_WORDS = set(
    "the and is my was i to of for with they have what how do does can it on at flight bag delayed cancelled "
    "luggage airline hours le les des du une est et je j mon ma mes vol valise bagage bagages retard annule "
    "avec pour dans pas ai ete suis quel quelle combien droit".split()
)
_WORD = re.compile(r"[^\W\d_]+")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower().replace("ł", "l").replace("ß", "ss"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def in_unsupported_language(text: str) -> bool:
    """True for a message in a language other than English or French (see the module's note)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    latin = sum(unicodedata.name(ch, "").startswith("LATIN") for ch in letters)
    if latin < len(letters) / 2:
        return True
    tokens = _WORD.findall(_fold(text))
    if not any(token in _OTHER_AIR_WORDS for token in tokens):
        return False
    other = sum(token in _OTHER_AIR_WORDS or token in _OTHER_COMMON_WORDS for token in tokens)
    return other > sum(token in _ENGLISH_FRENCH_WORDS for token in tokens)
