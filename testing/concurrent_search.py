"""Many sessions searching one shared engine at once, compared with each question searched alone."""

from __future__ import annotations

import random
import threading

from foundation.text import detect_language
from retrieval.engine import SearchEngine

# Fifty passengers' questions of every kind (short, long, French, off-topic, typos), written for this check.
QUESTIONS = (
    "My flight was delayed 4 hours, what compensation am I owed?",
    "Air Canada cancelled my flight for crew shortage, do they have to rebook me?",
    "I was bumped from an oversold flight to Calgary",
    "They lost my suitcase and it has been 25 days",
    "my bag came back with a broken wheel, who pays?",
    "Can I bring my service dog in the cabin?",
    "I use a wheelchair, will the airline help me board?",
    "The plane sat on the tarmac for 3 hours with no water",
    "Do they have to give me a meal voucher during a long delay?",
    "How long does the airline have to pay my compensation claim?",
    "Can the carrier make me check my violin?",
    "I missed my connection because the first flight was late",
    "Is weather a reason the airline does not have to pay?",
    "What must the airline tell me when my flight is delayed?",
    "They separated me from my 5 year old child on the plane",
    "Can I get a refund instead of a new flight?",
    "My flight was moved 2 days earlier, what are my rights?",
    "Who do I complain to if the airline ignores my claim?",
    "Mechanical problem delayed us overnight, do they pay the hotel?",
    "How much for a delay of 9 hours on a large carrier?",
    "What is the limit of liability for lost baggage?",
    "My stroller was damaged at the gate",
    "I was denied boarding even though I checked in on time",
    "Do I need to file a claim within a deadline for damaged luggage?",
    "The airline says safety reasons, can I still get money?",
    "Mon vol a été annulé, ai-je droit à un remboursement?",
    "Ma valise est arrivée endommagée, que faire?",
    "Le vol a eu 6 heures de retard à cause de l'équipage",
    "On m'a refusé l'embarquement sur un vol surréservé",
    "Quelles sont les obligations du transporteur pendant un retard sur l'aire de trafic?",
    "J'ai besoin d'un fauteuil roulant, le transporteur doit-il m'aider?",
    "Mes bagages sont perdus depuis trois semaines",
    "Combien d'indemnité pour un retard de 4 heures?",
    "Puis-je apporter mon instrument de musique en cabine?",
    "Le transporteur doit-il me fournir de la nourriture pendant le retard?",
    "a recipe for banana bread with walnuts",
    "the train to Montreal was late by two hours",
    "flght delayed 5 hrs wat do i get",
    "bag",
    "???",
    "compensation",
    "EU261 compensation for my flight from Paris",
    "My hotel booking was cancelled",
    "airline lost my bag and my flight was also cancelled and I spent the night on a bench in the terminal, "
    "what do they owe me for the bag, the hotel and the delay?",
    "Can a small carrier pay less compensation than a large one?",
    "Are infants allowed to sit on my lap?",
    "Do I get compensation if my flight is delayed because of a strike?",
    "What does the carrier have to do if my seat is downgraded?",
    "How do I know if my carrier is large or small?",
    "They overbooked the flight and asked for volunteers",
)
THREADS = 8


def results_of(engine: SearchEngine, question: str) -> list[tuple[str, str, str, float]]:
    """What a search shows, in a form two runs can be compared by: unit, language and exact score of each passage."""
    hits = engine.search(question, detect_language(question))
    return [(hit.passage.doc, hit.passage.unit, hit.passage.lang, hit.score) for hit in hits]


def search_concurrently(engine: SearchEngine, questions=QUESTIONS, threads: int = THREADS, seed: int = 0) -> list[str]:
    """Each thread searches every question, in its own order, all at once over one engine, as the page's
    sessions do; returns how each search differed from the same question searched alone (empty when none)."""
    alone = {question: results_of(engine, question) for question in questions}
    problems: list[str] = []
    start = threading.Barrier(threads)

    def session(number: int) -> None:
        order = list(questions)
        random.Random(seed * 1000 + number).shuffle(order)
        start.wait()
        for question in order:
            try:
                found = results_of(engine, question)
            except Exception as error:  # noqa: BLE001 - every failure is counted, not only the first
                problems.append(f"thread {number}: {question!r} raised {type(error).__name__}: {error}")
                continue
            if found != alone[question]:
                problems.append(f"thread {number}: {question!r} gave {found} instead of {alone[question]}")

    workers = [threading.Thread(target=session, args=(number,)) for number in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return problems


