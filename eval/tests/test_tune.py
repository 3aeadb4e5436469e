"""The replay `eval tune` and `eval ranker` measure through must show what the page's own search shows."""

from eval.tune import EvidenceReplay
from retrieval.search import load_engine, search_dialogue

STORY = [
    "Air Canada cancelled my flight from Toronto to Vancouver the night before because of crew scheduling, "
    "and my checked bag never arrived in Vancouver. What compensation can I get, and how long do I have to claim "
    "for the bag?"
]


def shown(result) -> list:
    return [(q.question, [hit.passage.unit_id for hit in q.hits]) for q in result.results]


def test_the_replay_shows_what_the_engine_shows(store_dir):
    engine = load_engine(store_dir)
    assert shown(search_dialogue(STORY, EvidenceReplay(engine))) == shown(search_dialogue(STORY, engine))
