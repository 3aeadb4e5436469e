"""The rule a machine-written question must pass before a passenger sees it.

The page promises that the only words it writes itself are questions about the passenger's situation. A
language model can be wrong or be steered by the message it reads, so a question it writes is shown only
when it is one plain question (at most 40 words, ending with "?", asking rather than telling) that carries
no figure the passenger did not give (an amount, a duration, a deadline, a section number), no address
(a URL, a www. name, an e-mail) and no Markdown. A question that breaks the rule is dropped.
"""

from __future__ import annotations

import re
import unicodedata

MAX_WORDS = 40

_ADDRESS = re.compile(
    r"[a-z][a-z0-9+.-]*://|\bwww\d?\.|[\w.+-]+@[\w-]+\.\w"  # URL scheme, www., e-mail
    r"|\b[a-z0-9][a-z0-9-]+\.(?:com|org|net|ca|gc|gov|info|io|co|uk|fr|eu|us|example|ly|me|app|link|xyz)\b",
    re.IGNORECASE,
)
# "$x" may open a formula; "30$?" closes an amount as Québec writes it
_MARKDOWN = re.compile(r"[*_`#\[\]<>|~\\]|^\s*(?:[-+>]|\d+[.)])\s|:[a-z-]+\[|\$[^\d\s.,;:!?)»]", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[ ,.\u202f\u00a0]\d{3})*(?:[.,]\d+)?")
_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "ninety": 90, "hundred": 100, "thousand": 1000, "deux": 2, "trois": 3, "quatre": 4,
    "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "quinze": 15, "vingt": 20,
    "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60, "cent": 100, "mille": 1000,
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# A question opens with an auxiliary verb ("Can ...", "Shouldn't ..."), has an interrogative among its first eight
# words ("Under which rule ...", "For a cancelled flight, what ..."), inverts a French subject ("Air Canada
# doit-il ..."), or is a question the passenger asked in those very words ("On a droit à quelque chose?").
# "You are owed $400?", written by a machine, does none of these.
_AUXILIARIES = {
    "is", "are", "am", "was", "were", "do", "does", "did", "can", "could", "may", "might", "must", "shall",
    "should", "will", "would", "has", "have", "had", "est-ce", "qu'est-ce",
    "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "can't", "couldn't", "mustn't",
    "shouldn't", "won't", "wouldn't", "hasn't", "haven't", "hadn't",
}  # fmt: skip
OWN_QUESTION_WORDS = 4  # "Seriously?" or "Is that it?" alone does not make a passenger's question
_FACTS_IN_BRACKETS = re.compile(r"\s*\([^()]*\)\s*(?=\?$)")
_INTERROGATIVES = {
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "whether", "quel", "quelle", "quels",
    "quelles", "lequel", "laquelle", "lesquels", "lesquelles", "qui", "quoi", "quand", "où", "comment",
    "pourquoi", "combien",
}  # fmt: skip
_FRENCH_INVERSION = re.compile(r"\w-(?:t-)?(?:je|tu|il|elle|on|nous|vous|ils|elles)\b", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"[.!?;:…]\s+\S")
# Québec French asks with "tu" after the verb, no hyphen ("Y peuvent tu se cacher derrière leur tarif?", "Ça compte
# tu?"), not the pronoun after a conjunction or before its verb ("pis tu sais", "Si tu peux"); and a statement ending
# in a tag asks too ("Pis la Convention s'applique pas, c'est ça?")
_QUEBEC_TU = re.compile(
    r"\b(?!(?:que|qu|si|quand|et|pis|comme|mais|ou|où|parce|lorsque|puisque|dont|toi|moi|je|j)\b)[^\W\d_]+ tu\b"
    r"(?! (?:as|es|vas|peux|dois|veux|sais|fais|dis|penses|crois|vois|viens|prends|me|te|ne|n'|l'|m'|t')\b)",
    re.IGNORECASE,
)
_TAG = re.compile(r"(?:c'est ça|c'est-tu ça|, non|hein|n'est-ce pas|is that right|isn't it)\s*\?$", re.IGNORECASE)


def rule_broken(question: str, passenger_text: str) -> str | None:
    """Why `question` may not be shown to a passenger whose messages are `passenger_text`; None when it may."""
    text = unicodedata.normalize("NFKC", question).strip()
    if not text.endswith("?"):
        return "it does not end with a question mark"
    if len(_WORD.findall(text)) > MAX_WORDS:
        return f"it is longer than {MAX_WORDS} words"
    if _ADDRESS.search(text):
        return "it contains a web or e-mail address"
    if _MARKDOWN.search(text):
        return "it contains formatting"
    if _SENTENCE_BREAK.search(text[:-1]):
        return "it says something before it asks"
    if not asks_by_form(text) and not _passengers_own_question(text, passenger_text):
        return "it is a statement, not a question"
    added = figures(text) - figures(passenger_text)
    if added:
        return "it has a figure the passenger did not give"
    return None


def figures(text: str) -> set[float]:
    """Every number in `text`, written in digits ("1,000", "4.5") or in words ("three", "trois")."""
    text = unicodedata.normalize("NFKC", text)
    found = {_value(match.group()) for match in _NUMBER.finditer(text)}
    found |= {_NUMBER_WORDS[word] for word in map(str.casefold, _WORD.findall(text)) if word in _NUMBER_WORDS}
    return found


def _value(number: str) -> float:
    digits = re.sub(r"[ ,.\u202f\u00a0](?=\d{3}\b)", "", number).replace(",", ".")
    try:
        return float(digits)
    except ValueError:
        return float(re.sub(r"\D", "", number) or 0)


def asks_by_form(text: str) -> bool:
    """Whether `text` is shaped as a question: an auxiliary first, an interrogative early, a French inversion, the
    Québec "tu" after a verb, or a tag at its end."""
    words = [word.casefold().replace("’", "'") for word in _WORD.findall(text)]
    if words[:1] and words[0] in _AUXILIARIES:
        return True
    if any(word in _INTERROGATIVES for word in words[:8]) or _FRENCH_INVERSION.search(text):
        return True
    return bool(_QUEBEC_TU.search(text.replace("’", "'")) or _TAG.search(text.strip()))


def without_facts(question: str) -> str:
    """The question as asked, without the facts in brackets a question carries ("What am I owed (Porter, 5 hours)?"
    asks "What am I owed?")."""
    return _FACTS_IN_BRACKETS.sub("", question)


def _passengers_own_question(question: str, passenger_text: str) -> bool:
    """Whether the passenger asked this question in these words, a question mark after them: spoken French and
    English often ask without inverting ("Pis pour le retard, on a droit à quelque chose?"). The facts in brackets
    that a question carries are the passenger's words too, checked apart (figures)."""
    core = without_facts(question)[:-1].strip(" ,")
    if len(_WORD.findall(core)) < OWN_QUESTION_WORDS:
        return False
    said = " ".join(unicodedata.normalize("NFKC", passenger_text).casefold().split())
    return re.search(re.escape(" ".join(core.casefold().split())) + r"\s*\?", said) is not None
