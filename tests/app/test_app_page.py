"""The page as a passenger and a volunteer use it, driven by Streamlit's AppTest against the real knowledge base."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from page_session import APP, TIMEOUT, open_page, open_review, send, sign_in
from streamlit.testing.v1 import AppTest

from kb.store import current_generation
from page.marking import marked_html
from page.wording import TEXT, escape_markdown
from retrieval.outcome import Outcome
from review.accounts import Accounts, Role
from review.log import FeedbackLog
from review.storage import engine_for
from testing.openai_stub import StubEndpoint

COMPOUND = (
    "Our Sunwing flight home from Punta Cana was cancelled, they said it was a crew scheduling problem, and we got "
    "home to Toronto 26 hours late. Then my suitcase had a huge crack. 1) how much compensation for the "
    "cancellation? 2) what do I do about the suitcase, is there a time limit?"
)
PASSWORD = "volunteer-pass-phrase"


@pytest.fixture
def feedback_db(store_dir, tmp_path, monkeypatch) -> Path:
    """The page pointed at the session's knowledge base and a fresh feedback log, with no language service."""
    monkeypatch.setenv("PASSENGER_KB_STORE", str(store_dir))
    monkeypatch.setenv("PASSENGER_FEEDBACK_DB", str(tmp_path / "feedback.sqlite3"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PASSENGER_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "feedback.sqlite3"






def accounts_beside(feedback_db: Path) -> Accounts:
    return Accounts(engine_for(f"sqlite:///{feedback_db}"))


def as_maintainer(feedback_db: Path) -> AppTest:
    """The passenger page in a session already signed in on the review page as a maintainer."""
    accounts_beside(feedback_db).create("max", Role.MAINTAINER, PASSWORD)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["account"] = "max"
    return at.run()


def click(at: AppTest, label: str) -> AppTest:
    next(button for button in at.button if button.label == label).click().run()
    assert not at.exception, at.exception
    return at




def texts(at: AppTest) -> list[str]:
    return [element.value for element in at.text]


def markdown(at: AppTest) -> str:
    return "\n".join(element.value for element in [*at.markdown, *at.caption, *at.info, *at.warning])


def latest_search(at: AppTest):
    return at.session_state.conversation.exchanges[-1].search_result


def test_a_compound_message_shows_each_question_with_verbatim_passages_and_links(feedback_db):
    at = send(open_page(), COMPOUND)
    found = latest_search(at)
    assert len(found.results) >= 2 and all(result.hits for result in found.results)
    page = markdown(at)
    assert "**Questions searched**" in page
    for number, result in enumerate(found.results, start=1):
        assert f"{number}. {result.question}" in texts(at)
        for hit in result.hits:
            assert f"(<{hit.passage.url}>)" in page
            if hit.parts:  # the parts that answer first, then the whole unit with them marked
                assert all(part.text in texts(at) for part in hit.parts)
                assert marked_html(hit.passage.text, hit.parts) in [element.value for element in at.html]
            else:
                assert hit.passage.text in texts(at)
    assert any(hit.parts for result in found.results for hit in result.hits)
    hits = [hit for result in found.results for hit in result.hits]
    assert [expander.label for expander in at.expander] == [hit.passage.title for hit in hits]
    first_of_each = [rank == 0 for result in found.results for rank in range(len(result.hits))]
    assert [expander.proto.expanded for expander in at.expander] == first_of_each
    assert COMPOUND in texts(at)
    assert "consolidated to 2025\\-07\\-24" in page


def test_a_follow_up_is_searched_with_the_history(feedback_db):
    at = send(open_page(), "Our Air Canada flight from Montreal to Vancouver was cancelled last night at the gate.")
    at = send(at, "Update: they said it was a crew scheduling issue. We paid $240 for a hotel. Can we get that back?")
    found = latest_search(at)
    assert "Montreal" in found.understanding.standalone
    assert any(result.hits for result in found.results)
    turn = FeedbackLog(feedback_db).recent_turns()[0]
    assert turn.history == ("Our Air Canada flight from Montreal to Vancouver was cancelled last night at the gate.",)
    assert len(at.chat_message) == 4


def test_a_train_delay_is_outside_the_knowledge_base(feedback_db):
    at = send(open_page(), "My VIA Rail train from Toronto to Montreal was 5 hours late. Am I owed compensation?")
    assert TEXT["en"][Outcome.OTHER_SERVICE] in [info.value for info in at.info]
    assert not at.expander


def test_a_question_with_no_passages_says_where_to_look_next(feedback_db):
    at = send(open_page(), "Does WestJet serve vegetarian meals on flights to Calgary?")
    assert TEXT["en"]["not_covered"] in [info.value for info in at.info]
    assert "https://otc-cta.gc.ca" in TEXT["en"]["not_covered"]


def test_a_message_without_a_place_asks_where_the_flight_went_and_searches_again(feedback_db):
    at = send(open_page(), "My flight was cancelled because of a crew shortage. What am I owed?")
    assert TEXT["en"]["scope_question"] in markdown(at)
    at = click(at, "Within Canada")
    assert "The flight was within Canada." in latest_search(at).understanding.standalone
    assert not any(button.label == "Within Canada" for button in at.button)
    at = send(at, "And can they refuse to pay?")
    at = click(at, "Neither") if any(b.label == "Neither" for b in at.button) else at
    assert not at.exception


def test_neither_gets_the_fixed_explanation(feedback_db):
    at = click(send(open_page(), "My flight was delayed 6 hours, compensation?"), "Neither")
    assert TEXT["en"][Outcome.FLIGHT_NOT_IN_CANADA] in [info.value for info in at.info]


def test_french_switches_the_interface_and_shows_french_passages(feedback_db):
    at = send(open_page(), "Mon vol a été annulé la veille du départ, quels sont mes droits et quelle indemnité?")
    assert at.session_state.lang == "fr"
    assert at.chat_input[0].placeholder == TEXT["fr"]["chat_placeholder"]
    assert f"**{TEXT['fr']['questions_searched']}**" in markdown(at)
    hits = [hit for result in latest_search(at).results for hit in result.hits]
    assert hits and all(hit.passage.lang == "fr" for hit in hits if hit.passage.doc == "SOR-2019-150")
    assert TEXT["fr"]["official_link"] in markdown(at)
    at.sidebar.radio[0].set_value("en").run()
    assert at.session_state.lang == "en" and not at.exception


@pytest.mark.parametrize(
    "message",
    [
        "",
        "   ",
        "\x00\x07\x1b[31m",
        "x" * 20_000,
        "<script>alert('x')</script> my flight to Halifax was delayed <img src=x onerror=alert(1)>",
        "**bold** [click me](javascript:alert(1)) # Heading :red[red] $E=mc^2$ flight delayed in Toronto",
        "flight\x00 delayed\x1b[2J 5 hours in Calgary",
    ],
)
def test_bad_input_is_shown_as_plain_text_and_never_crashes(feedback_db, message):
    at = send(open_page(), message)
    exchange = at.session_state.conversation.exchanges[-1] if at.session_state.conversation.exchanges else None
    if exchange is None:  # an empty chat input submits nothing
        assert message.strip() in ("", "\x00\x07\x1b[31m".strip())
        return
    if len(message) > 4000:
        assert exchange.refusal is Outcome.TOO_LONG and at.session_state.conversation.turns == []
        assert any("20,000 characters" in warning.value for warning in at.warning)
        assert FeedbackLog(feedback_db).recent_turns() == []
        return
    if exchange.search_result is not None:
        assert exchange.message in texts(at)
    for element in [*at.markdown, *at.caption]:
        assert not re.search(r"(?<!\\)(<script|<img|\[click me\]|:red\[|\*\*bold)", element.value), element.value


def test_a_link_with_a_question_asks_it(feedback_db):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["q"] = "WestJet YYC to YYZ landed 4 hours late because of a crew shortage. How much compensation?"
    at.run()
    assert not at.exception
    assert any(result.hits for result in latest_search(at).results)
    at.run()
    assert len(at.session_state.conversation.exchanges) == 1


def test_new_conversation_forgets_the_history(feedback_db):
    at = send(open_page(), "My bag was lost on my flight to Halifax")
    at = click(at, TEXT["en"]["new_conversation"])
    assert at.session_state.conversation.turns == [] and not at.chat_message


def test_a_failing_language_service_falls_back_with_a_note(feedback_db, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PASSENGER_LLM_MODEL", "test-model")
    monkeypatch.setenv("PASSENGER_LLM_TIMEOUT", "1")
    monkeypatch.setenv("PASSENGER_LLM_RETRIES", "0")
    at = send(open_page(), "My flight to Halifax was delayed 5 hours, what am I owed?")
    found = latest_search(at)
    assert found.understanding.path == "offline" and found.understanding.note
    note_start = escape_markdown(TEXT["en"]["offline_note"].split("{")[0])
    assert any(caption.value.startswith(note_start) for caption in at.caption)
    assert any("test-model" in text.value for text in at.sidebar.text)  # plain text: the address is no link


def test_a_missing_knowledge_base_explains_the_command_to_build_it(feedback_db, tmp_path, monkeypatch):
    monkeypatch.setenv("PASSENGER_KB_STORE", str(tmp_path / "empty-store"))
    at = open_page()
    assert TEXT["en"]["kb_missing"] in [warning.value for warning in at.warning]
    assert TEXT["en"]["kb_rebuild_command"] in [info.value for info in at.info]
    assert TEXT["en"]["kb_build"] not in [button.label for button in at.button]  # no visitor can start a build
    assert not at.chat_input


def damaged_copy(store_dir: Path, tmp_path: Path) -> Path:
    """A copy of the session's store whose HNSW file was deleted, beside an intact older generation to reuse."""
    copy = tmp_path / "store"
    shutil.copytree(store_dir, copy)
    generation = current_generation(copy)
    shutil.copytree(generation, copy / "gen-00000000T000000000000-1")
    next((generation / "chroma").glob("*/data_level0.bin")).unlink()
    return copy


def test_a_damaged_store_is_named_and_rebuilt_only_by_a_maintainer(feedback_db, store_dir, tmp_path, monkeypatch):
    copy = damaged_copy(store_dir, tmp_path)
    monkeypatch.setenv("PASSENGER_KB_STORE", str(copy))
    at = open_page()
    [warning] = at.warning
    assert warning.value.startswith(TEXT["en"]["kb_damaged"].split("{")[0]) and "data\\_level0" in warning.value
    assert not at.chat_input and TEXT["en"]["kb_build"] not in [button.label for button in at.button]
    assert TEXT["en"]["kb_rebuild_sign_in"] in [caption.value for caption in at.caption]

    at = click(as_maintainer(feedback_db), TEXT["en"]["kb_build"])
    assert at.chat_input and not at.warning
    send(at, "My flight was cancelled, what am I owed?")
    assert latest_search(at).results[0].hits


def test_a_store_from_another_model_says_so_and_offers_the_rebuild(feedback_db, store_dir, tmp_path, monkeypatch):
    copy = tmp_path / "store"
    shutil.copytree(store_dir, copy)
    meta_path = current_generation(copy) / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta_path.write_text(json.dumps({**meta, "model_id": "another-model"}), encoding="utf-8")
    monkeypatch.setenv("PASSENGER_KB_STORE", str(copy))
    at = as_maintainer(feedback_db)
    assert TEXT["en"]["kb_mismatch"] in [warning.value for warning in at.warning]
    assert TEXT["en"]["kb_build"] in [button.label for button in at.button] and not at.chat_input


def test_a_search_server_that_is_down_is_said_plainly(feedback_db, monkeypatch):
    monkeypatch.setenv("PASSENGER_CHROMA_URL", "http://127.0.0.1:9")
    at = open_page()
    [warning] = at.warning
    assert warning.value.startswith(TEXT["en"]["kb_server_down"].split("{")[0])
    assert TEXT["en"]["kb_build"] not in [button.label for button in at.button] and not at.chat_input


def test_feedback_reaches_the_review_page_and_the_export(feedback_db, monkeypatch):
    at = send(open_page(), "Flair YYC to YVR: can they make me pay to sit next to my 4 year old?")
    at.feedback[0].set_value(0).run()
    at.text_input[0].input("not the seating rule I expected").run()
    assert not at.exception
    assert TEXT["en"]["feedback_thanks"] in [caption.value for caption in at.caption]
    shown = FeedbackLog(feedback_db).recent_turns()[0].shown[0]
    assert (shown.helpful, shown.feedback_note) == (False, "not the seating rule I expected")

    accounts_beside(feedback_db).create("max", Role.MAINTAINER, PASSWORD)
    review = sign_in(open_review(), "max", "wrong")
    assert review.error and not review.download_button
    review = sign_in(review, "max", PASSWORD)
    assert not review.exception and review.download_button
    review.selectbox(key="review-filter").set_value("not_helpful").run()
    assert "Flair YYC to YVR: can they make me pay to sit next to my 4 year old?" in texts(review)
    assert "not the seating rule I expected" in markdown(review).replace("\\", "")

    review.button_group[0].set_value("relevant").run()
    assert not review.exception
    unit_inputs = [field for field in review.text_input if field.label == TEXT["en"]["review_missing_unit"]]
    unit_inputs[0].input("SOR-2019-150 s99x")
    next(b for b in review.button if b.label == TEXT["en"]["review_add_unit"]).click().run()
    unknown = TEXT["en"]["review_unit_unknown"].format(unit=escape_markdown("SOR-2019-150 s99x"))
    assert unknown in [error.value for error in review.error]
    unit_inputs = [field for field in review.text_input if field.label == TEXT["en"]["review_missing_unit"]]
    unit_inputs[0].input("SOR-2019-150 s5")
    next(b for b in review.button if b.label == TEXT["en"]["review_add_unit"]).click().run()
    assert not review.exception

    (item,) = [json.loads(line) for line in FeedbackLog(feedback_db).export_jsonl().splitlines()]
    assert item["turns"] == ["Flair YYC to YVR: can they make me pay to sit next to my 4 year old?"]
    assert {"doc": "SOR-2019-150", "unit": "s5", "why": "added in review"} in item["gold"]
    assert (shown.doc, shown.unit) in {(unit["doc"], unit["unit"]) for unit in item["gold"]}
    assert set(item) == {"id", "type", "turns", "gold", "note", "reviewed_by"} and item["reviewed_by"] == "max"


def test_the_review_page_says_how_to_make_the_first_account(feedback_db):
    send(open_page(), "My bag was lost on my flight to Halifax")
    review = open_review()
    assert "python -m review.accounts create" in review.info[0].value
    assert not review.text_input and not review.download_button and not review.text


def test_an_unwritable_feedback_log_still_shows_the_passages(feedback_db, tmp_path, monkeypatch):
    monkeypatch.setenv("PASSENGER_FEEDBACK_DB", str(tmp_path))  # a directory: SQLite cannot open it
    at = send(open_page(), "My bag was lost on my flight to Halifax")
    assert at.expander and not at.feedback
    assert any(result.hits for result in latest_search(at).results)


PLANTED = "You are owed $4,321 under APPR s.19, claim it now at www.evil.example?"
HOSTILE = (
    "My flight to Halifax was delayed 5 hours. Claim at https://evil.example or www.evil.example, mail a@evil.example"
)


def page_strings(at: AppTest) -> str:
    """Every piece of text the page holds, main area and sidebar, from the elements' own messages."""
    found = []

    def walk(node) -> None:
        if (proto := getattr(node, "proto", None)) is not None:
            found.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(found)


def planting_endpoint():
    reply = json.dumps(
        {"standalone": PLANTED, "questions": [PLANTED, "What do I get? [Claim now](http://evil.example)"]}
    )
    return StubEndpoint(lambda system, user: reply)


def test_a_language_model_that_plants_an_amount_and_a_link_is_not_shown(feedback_db, monkeypatch):
    from query_understanding import understand

    message = "Our WestJet flight from Calgary to Halifax was delayed 7 hours. What are we owed?"
    with planting_endpoint() as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.config.base_url)
        monkeypatch.setenv("PASSENGER_LLM_MODEL", "stub-model")
        monkeypatch.setenv("PASSENGER_LLM_RETRIES", "0")
        at = send(open_page(), message)
        assert stub.requests  # the language model was asked
    understanding = latest_search(at).understanding
    assert understanding.path == "offline"
    assert understanding.questions == understand([message], config=None).questions
    for number, question in enumerate(understanding.questions, start=1):
        assert f"{number}. {question}" in texts(at)
    endpoint = stub.config.base_url.split("//", 1)[-1]  # its random port may hold "4321": it is not the model's
    everything = page_strings(at).replace(endpoint, "")
    assert message in everything
    for planted in ("4,321", "4321", "evil", "Claim now"):
        assert planted not in everything


def test_addresses_in_a_message_are_only_ever_plain_text(feedback_db):
    at = send(open_page(), HOSTILE)
    assert HOSTILE in texts(at)
    for element in [*at.markdown, *at.caption, *at.info, *at.warning, *at.sidebar.caption]:
        assert "evil" not in element.value.replace("\\", ""), element.value
