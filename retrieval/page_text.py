"""The passenger page's fixed wording, in English and French, and how it describes the knowledge base.

Every sentence the page says on its own behalf is here, written once per language, so that none of it is
machine-written and a translator can read it in one place. Text that comes from a passenger or from the law
is never formatted here: the page shows it as plain text.
"""

from __future__ import annotations

import re
from collections import defaultdict

from kb.sources import Instrument, Sources
from retrieval.conversation import Refusal
from retrieval.coverage import OutsideCoverage

LANGUAGES = {"en": "English", "fr": "Français"}
# A language as named in a sentence of the interface: LANGUAGE_NAMES[interface language][language].
LANGUAGE_NAMES = {"en": {"en": "English", "fr": "French"}, "fr": {"en": "anglais", "fr": "français"}}
CTA_URL = "https://otc-cta.gc.ca"
JUSTICE_LAWS_URL = "https://laws-lois.justice.gc.ca"

# Each sentence is keyed by its name, or by why nothing is searched or shown (a Refusal, an OutsideCoverage).
TEXT: dict[str, dict[str, str]] = {
    "en": {
        "page_title": "Air passenger rights in Canada: the law's own words",
        "passenger_nav": "Ask",
        "review_nav": "Review (volunteers)",
        "notice": (
            "Legal information, not legal advice. The passages shown are copied word for word from Canadian law; "
            f"the official text is on the Justice Laws website ({JUSTICE_LAWS_URL})."
        ),
        "notice_dates": "This copy of the law is consolidated to {dates}.",
        "intro": (
            "Describe what happened on your flight, in your own words. The page looks up the passages of Canadian "
            "law that speak to it and shows them exactly as written, each with a link to the official text. "
            "It does not write answers of its own."
        ),
        "chat_placeholder": "What happened on your flight?",
        "searching": "Searching the law…",
        "questions_searched": "Questions searched",
        "questions_searched_help": (
            "Written from your message to search the law. They are the only words on this page not taken "
            "from you or from the law."
        ),
        "where": "Where it sits:",
        "language": "Language of this passage:",
        "official_link": "Official text on the Justice Laws website",
        "guide_link": "Source page",
        "not_covered": (
            "The knowledge base does not cover this question. The Canadian Transportation Agency "
            f"({CTA_URL}) explains air passengers' rights and handles complaints, and the airline's tariff "
            "(its conditions of carriage, published on its website) sets out its own terms."
        ),
        "shown_above": "The passages found for this question are shown above: {titles}.",
        "also_shown_above": "Also found for this question, and shown above: {titles}.",
        OutsideCoverage.FOREIGN_REGIME: (
            "This looks like a question under another country's rules, such as the European Union's "
            "Regulation 261/2004. The knowledge base holds Canadian law on air travel only, so it cannot show "
            "those rules; the authorities of that country, or the airline, can say which apply."
        ),
        OutsideCoverage.OTHER_SERVICE: (
            "This looks like a question about another kind of service, such as a train, a bus, a hotel or a "
            "booking site. The knowledge base covers air travel under Canadian law only. The Canadian "
            f"Transportation Agency ({CTA_URL}) can say which rules apply to other travel in Canada."
        ),
        OutsideCoverage.NOT_AIR_TRAVEL: (
            "This does not look like a question about air travel. The knowledge base covers air passengers' "
            "rights under Canadian law: delays, cancellations, denied boarding, tarmac delays, baggage, "
            "seating, accessibility and complaints."
        ),
        OutsideCoverage.NO_CANADIAN_LINK: (
            "This flight does not seem to depart from or arrive in Canada, nor to be operated by a Canadian "
            "airline, so the Canadian law in the knowledge base does not apply to it. The rules of the country "
            "where the flight took place, or the airline's own conditions, can say what applies."
        ),
        Refusal.EMPTY: (
            "There is nothing to look up in this message. Describe what happened on your flight in a few words."
        ),
        Refusal.TOO_LONG: (
            "This message is too long to search ({length:,} characters; the limit is {limit:,}). Nothing was "
            "searched. Please send the main facts only: what happened, with which airline, and where the flight "
            "went."
        ),
        Refusal.SEARCH_FAILED: "Something went wrong while searching, and nothing could be shown. Please try again.",
        Refusal.SEARCH_SERVER_DOWN: (
            "The search server is not answering, so nothing could be searched. Please try again in a few minutes."
        ),
        "scope_question": "Was your flight to, from or within Canada?",
        "scope_within": "Within Canada",
        "scope_to_or_from": "To or from Canada",
        "scope_neither": "Neither",
        Refusal.FLIGHT_NOT_IN_CANADA: (
            "Canada's air passenger protection rules apply to flights to, from and within Canada. For a flight "
            "that neither starts nor ends in Canada, the rules of the countries involved apply, and the knowledge "
            "base does not hold them."
        ),
        "offline_note": "The questions were written by the built-in rules because the language service failed: {note}",
        "helpful_prompt": "Was this passage helpful?",
        "feedback_note": "Note (optional)",
        "feedback_thanks": "Thank you, your feedback is saved.",
        "feedback_failed": "Sorry, your feedback could not be saved.",
        "sidebar_language": "Language / Langue",
        "new_conversation": "New conversation",
        "kb_status": "Knowledge base",
        "kb_passages": "{count:,} passages",
        "kb_built": "Built {built_at}",
        "kb_instrument": "{instrument} ({doc}): {languages}, consolidated to {dates}",
        "llm_configured": "Language service: {model} at {where}",
        "llm_default_endpoint": "the default endpoint",
        "llm_not_configured": "Language service: not configured; built-in rules read the messages.",
        "llm_settings_bad": "Language service: switched off, built-in rules read the messages. {problem}",
        "privacy_notice": (
            "Your questions are kept to improve the answers, with names, e-mail addresses, phone numbers and "
            "booking references removed, and deleted after {days} days."
        ),
        "log_failed": "Maintainers: the log of questions could not be written; see the server's log.",
        Refusal.UNSUPPORTED_LANGUAGE: (
            "The assistant reads questions in English and French only. Please ask again in one of these languages."
        ),
        "kb_missing": "The knowledge base has not been built yet, so nothing can be searched.",
        "kb_mismatch": (
            "The knowledge base was built with another embedding model than the one installed, so it cannot be "
            "searched. It needs to be rebuilt."
        ),
        "kb_damaged": "The knowledge base is damaged, so nothing can be searched: {cause}.",
        "kb_server_down": "The search server is not answering, so nothing can be searched right now. {cause}",
        "kb_rebuild_command": "A maintainer can rebuild it with the command `python -m ingest`.",
        "kb_rebuild_password": "Or rebuild it here: review password",
        "kb_wrong_password": "That password is not the configured one.",
        "kb_build_running": "A build is already running. Reload the page in a minute.",
        "kb_build": "Build the knowledge base (about a minute)",
        "kb_building": "Building the knowledge base…",
        "kb_build_failed": "The knowledge base could not be built: {error}",
        "and": "and",
    },
    "fr": {
        "page_title": "Droits des passagers aériens au Canada : le texte même de la loi",
        "passenger_nav": "Poser une question",
        "review_nav": "Révision (bénévoles)",
        "notice": (
            "Information juridique, et non un avis juridique. Les passages affichés sont copiés mot pour mot du "
            f"droit canadien; le texte officiel se trouve sur le site Web de la législation ({JUSTICE_LAWS_URL})."
        ),
        "notice_dates": "Cette copie de la loi est à jour au {dates}.",
        "intro": (
            "Décrivez ce qui s'est passé pendant votre vol, dans vos propres mots. La page cherche les passages "
            "du droit canadien qui en parlent et les affiche tels quels, chacun avec un lien vers le texte "
            "officiel. Elle ne rédige aucune réponse."
        ),
        "chat_placeholder": "Que s'est-il passé pendant votre vol?",
        "searching": "Recherche dans la loi…",
        "questions_searched": "Questions recherchées",
        "questions_searched_help": (
            "Rédigées à partir de votre message pour chercher dans la loi. Ce sont les seuls mots de cette page "
            "qui ne viennent ni de vous ni de la loi."
        ),
        "where": "Emplacement :",
        "language": "Langue de ce passage :",
        "official_link": "Texte officiel sur le site Web de la législation",
        "guide_link": "Page source",
        "not_covered": (
            "La base de connaissances ne couvre pas cette question. L'Office des transports du Canada "
            f"({CTA_URL}) explique les droits des passagers aériens et traite les plaintes, et le tarif de la "
            "compagnie aérienne (ses conditions de transport, publiées sur son site Web) fixe ses propres "
            "conditions."
        ),
        "shown_above": "Les passages trouvés pour cette question sont affichés plus haut : {titles}.",
        "also_shown_above": "Également trouvés pour cette question, et affichés plus haut : {titles}.",
        OutsideCoverage.FOREIGN_REGIME: (
            "Cette question semble porter sur les règles d'un autre pays, comme le règlement 261/2004 de l'Union "
            "européenne. La base de connaissances ne contient que le droit canadien du transport aérien et ne "
            "peut donc pas montrer ces règles; les autorités de ce pays, ou la compagnie aérienne, peuvent dire "
            "lesquelles s'appliquent."
        ),
        OutsideCoverage.OTHER_SERVICE: (
            "Cette question semble porter sur un autre type de service, comme un train, un autocar, un hôtel ou "
            "un site de réservation. La base de connaissances ne couvre que le transport aérien en droit "
            f"canadien. L'Office des transports du Canada ({CTA_URL}) peut dire quelles règles s'appliquent aux "
            "autres voyages au Canada."
        ),
        OutsideCoverage.NOT_AIR_TRAVEL: (
            "Cette question ne semble pas porter sur le transport aérien. La base de connaissances couvre les "
            "droits des passagers aériens en droit canadien : retards, annulations, refus d'embarquement, "
            "retards sur l'aire de trafic, bagages, sièges, accessibilité et plaintes."
        ),
        OutsideCoverage.NO_CANADIAN_LINK: (
            "Ce vol ne semble ni partir du Canada, ni y arriver, ni être exploité par une compagnie aérienne "
            "canadienne : le droit canadien de la base de connaissances ne s'y applique donc pas. Les règles du pays "
            "où le vol a eu lieu, ou les conditions de la compagnie, peuvent dire ce qui s'applique."
        ),
        Refusal.EMPTY: (
            "Ce message ne contient rien à chercher. Décrivez en quelques mots ce qui s'est passé pendant votre vol."
        ),
        Refusal.TOO_LONG: (
            "Ce message est trop long pour être cherché ({length} caractères; la limite est de {limit}). Rien "
            "n'a été cherché. Envoyez seulement les faits principaux : ce qui s'est passé, avec quelle compagnie "
            "et où allait le vol."
        ),
        Refusal.SEARCH_FAILED: (
            "Un problème est survenu pendant la recherche, et rien n'a pu être affiché. Veuillez réessayer."
        ),
        Refusal.SEARCH_SERVER_DOWN: (
            "Le serveur de recherche ne répond pas; rien n'a pu être cherché. Veuillez réessayer dans quelques minutes."
        ),
        "scope_question": "Votre vol partait-il du Canada, y arrivait-il, ou était-il à l'intérieur du Canada?",
        "scope_within": "À l'intérieur du Canada",
        "scope_to_or_from": "Vers le Canada ou depuis le Canada",
        "scope_neither": "Ni l'un ni l'autre",
        Refusal.FLIGHT_NOT_IN_CANADA: (
            "Les règles canadiennes de protection des passagers aériens s'appliquent aux vols à destination, en "
            "provenance et à l'intérieur du Canada. Pour un vol qui ne part pas du Canada et n'y arrive pas, ce "
            "sont les règles des pays concernés qui s'appliquent, et la base de connaissances ne les contient pas."
        ),
        "offline_note": (
            "Les questions ont été rédigées par les règles intégrées parce que le service linguistique a échoué : "
            "{note}"
        ),
        "helpful_prompt": "Ce passage vous a-t-il été utile?",
        "feedback_note": "Remarque (facultatif)",
        "feedback_thanks": "Merci, votre commentaire est enregistré.",
        "feedback_failed": "Désolé, votre commentaire n'a pas pu être enregistré.",
        "sidebar_language": "Language / Langue",
        "new_conversation": "Nouvelle conversation",
        "kb_status": "Base de connaissances",
        "kb_passages": "{count} passages",
        "kb_built": "Construite le {built_at}",
        "kb_instrument": "{instrument} ({doc}) : {languages}, à jour au {dates}",
        "llm_configured": "Service linguistique : {model} à {where}",
        "llm_default_endpoint": "l'adresse par défaut",
        "llm_not_configured": "Service linguistique : non configuré; les règles intégrées lisent les messages.",
        "llm_settings_bad": "Service linguistique : désactivé, les règles intégrées lisent les messages. {problem}",
        "privacy_notice": (
            "Vos questions sont conservées pour améliorer les réponses, sans noms, adresses courriel, numéros de "
            "téléphone ni références de réservation, et supprimées après {days} jours."
        ),
        "log_failed": "Responsables : le journal des questions n'a pas pu être écrit; voir le journal du serveur.",
        Refusal.UNSUPPORTED_LANGUAGE: (
            "L'assistant lit les questions en anglais et en français seulement. Veuillez poser la vôtre de nouveau "
            "dans l'une de ces langues."
        ),
        "kb_missing": "La base de connaissances n'a pas encore été construite; aucune recherche n'est possible.",
        "kb_mismatch": (
            "La base de connaissances a été construite avec un autre modèle de plongement que celui qui est "
            "installé; elle ne peut pas être interrogée. Il faut la reconstruire."
        ),
        "kb_damaged": "La base de connaissances est endommagée; aucune recherche n'est possible : {cause}.",
        "kb_server_down": (
            "Le serveur de recherche ne répond pas; aucune recherche n'est possible pour l'instant. {cause}"
        ),
        "kb_rebuild_command": "Un responsable peut la reconstruire avec la commande `python -m ingest`.",
        "kb_rebuild_password": "Ou la reconstruire ici : mot de passe de révision",
        "kb_wrong_password": "Ce mot de passe n'est pas celui qui est configuré.",
        "kb_build_running": "Une construction est déjà en cours. Rechargez la page dans une minute.",
        "kb_build": "Construire la base de connaissances (environ une minute)",
        "kb_building": "Construction de la base de connaissances…",
        "kb_build_failed": "La base de connaissances n'a pas pu être construite : {error}",
        "and": "et",
    },
}

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$&=\"'])")


def say(lang: str, key: str, **values) -> str:
    """The fixed sentence `key` in `lang` (English when the language is unknown), with `values` filled in."""
    sentence = TEXT.get(lang, TEXT["en"])[key]
    return sentence.format(**values) if values else sentence


def escape_markdown(text: str) -> str:
    """Text that Markdown shows exactly as typed: every character Markdown or Streamlit could read is escaped.

    For the few places that only take Markdown (expander labels, captions); elsewhere the page uses st.text.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


def language_name(lang: str, code: str) -> str:
    return LANGUAGE_NAMES.get(lang, LANGUAGE_NAMES["en"]).get(code, code)


def built_at(meta: dict) -> str:
    """When the knowledge base was built, to the minute: "2026-11-22 04:30 UTC"."""
    stamp = meta.get("built_at", "")
    return f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) >= 16 else stamp or "?"


def consolidation_dates(sources: Sources) -> list[str]:
    """The snapshot's consolidation dates, oldest first, each once."""
    return sorted({instrument.consolidated for instrument in sources.instruments})


def join_words(lang: str, items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {say(lang, 'and')} {items[-1]}"


def instrument_lines(sources: Sources, lang: str) -> list[str]:
    """One line per instrument: its name in `lang` when the snapshot has it, its languages and dates."""
    by_doc: dict[str, list[Instrument]] = defaultdict(list)
    for instrument in sources.instruments:
        by_doc[instrument.doc].append(instrument)
    lines = []
    for doc, versions in by_doc.items():
        named = next((v for v in versions if v.lang == lang), versions[0])
        languages = [language_name(lang, code) for code in sorted({v.lang for v in versions})]
        dates = sorted({v.consolidated for v in versions})
        lines.append(
            say(
                lang,
                "kb_instrument",
                instrument=named.instrument,
                doc=doc,
                languages=join_words(lang, languages),
                dates=join_words(lang, dates),
            )
        )
    return lines
