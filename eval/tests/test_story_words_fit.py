"""The map of stories' words is fitted on the bank and the story sets' answerable items: a new story's words score
the units of stories told in the same words, and a word in one text alone gets no weight."""

from eval.retrieval_eval import GoldItem
from eval.story_words_fit import fit_story_words, training_texts
from kb.bank import BankEntry
from kb.passage import UnitId

S19, ART17 = UnitId("SOR-2019-150", "s19"), UnitId("C-26", "sch6-art17")
BANK = [
    BankEntry("SOR-2019-150", "s19", "en", "How much compensation for a cancelled flight?"),
    BankEntry("C-26", "sch6-art17", "en", "My suitcase arrived damaged, who pays?"),
]
ITEMS = [
    GoldItem(
        "a",
        "compound",
        ["They cancelled, the crew was short. Compensation?", "And my suitcase was damaged."],
        {S19, ART17},
    ),
    GoldItem("b", "en", ["The crew never showed up and they cancelled; what compensation is owed?"], {S19}),
    GoldItem("c", "en", ["The handle of my suitcase was ripped off, damaged beyond repair."], {ART17}),
    GoldItem("d", "unanswerable", ["My train was late."], set()),
]


def test_the_bank_and_the_answerable_items_are_its_texts():
    texts = training_texts(BANK, ITEMS)
    assert [units for _, units in texts] == [{S19}, {ART17}, {S19, ART17}, {S19}, {ART17}]
    assert {"the", "crew", "the crew", "crew never"} <= set(texts[3][0])  # every word, and each two neighbours


def test_a_new_story_scores_the_units_of_stories_told_in_its_words():
    story_words = fit_story_words(training_texts(BANK, ITEMS))
    assert "handl" not in story_words.words  # in one text only
    crew = story_words.scores("The crew was missing so they cancelled us.", "en")
    bag = story_words.scores("My suitcase came off the belt damaged.", "en")
    assert crew[S19] > crew[ART17] and bag[ART17] > bag[S19]
