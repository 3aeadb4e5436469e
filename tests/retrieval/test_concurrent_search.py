"""Many sessions searching one shared engine at once get what each would get alone, and nothing raises."""

from __future__ import annotations

import threading

from retrieval.terms import terms
from testing.concurrent_search import QUESTIONS, THREADS, search_concurrently


def test_eight_threads_of_fifty_questions_match_the_questions_searched_one_at_a_time(fake_engine):
    assert THREADS == 8 and len(QUESTIONS) == 50
    assert search_concurrently(fake_engine) == []


def test_stemming_on_many_threads_matches_stemming_on_one():
    texts = [question for question in QUESTIONS if question.strip("?")] * 40
    expected = [terms(text, "fr" if index % 2 else "en") for index, text in enumerate(texts)]
    seen: list[list[list[str]]] = []

    def stem_all() -> None:
        seen.append([terms(text, "fr" if index % 2 else "en") for index, text in enumerate(texts)])

    workers = [threading.Thread(target=stem_all) for _ in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert seen == [expected] * THREADS
