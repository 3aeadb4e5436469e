"""`eval retrieval`'s placement: where the passages of a several-question message land."""

from eval.retrieval_eval import GoldItem, placement
from kb.passage import UnitId
from retrieval.search import load_engine, search_dialogue

COMPENSATION = {UnitId("SOR-2019-150", "s19")}
TWO_ASKS = GoldItem("two", "compound", ["My flight was cancelled and they lost my bag, what can I get?"], COMPENSATION)
ONE_ASK = GoldItem("one", "single", ["My flight was cancelled, what can I get?"], COMPENSATION)


def test_placement_counts_every_passage_shown_under_the_questions_of_a_split_message(store_dir):
    engine = load_engine(store_dir)
    result = search_dialogue(TWO_ASKS.turns, engine)
    shown = sum(len(q.hits) for q in result.results)
    placed = placement([result], [TWO_ASKS.turns], engine)
    assert placed["shown"] == shown > 0
    assert 0 <= placed["crossed"] <= placed["shown"]


def test_a_message_of_one_question_has_no_placement_to_measure(store_dir):
    engine = load_engine(store_dir)
    assert placement([search_dialogue(ONE_ASK.turns, engine)], [ONE_ASK.turns], engine) == {"shown": 0, "crossed": 0}
