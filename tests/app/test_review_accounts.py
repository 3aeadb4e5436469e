"""The review page signs each volunteer in as themselves, by a local account or through the identity provider
(st.user, as Streamlit hands it to the page), and shows each role only what it may do."""

from __future__ import annotations

import pytest
from page_session import TIMEOUT, open_page, review_script, send, sign_in
from streamlit.testing.v1 import AppTest

from kb.bank import BankEntry
from page.wording import TEXT, escape_markdown
from review.accounts import Accounts, Role
from review.log import FeedbackLog
from review.storage import engine_for

PASSWORD = "a long review pass phrase"
AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "test-cookie-secret",
    "client_id": "review",
    "client_secret": "review-secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
MESSAGE = "My bag was lost on my flight to Halifax, what can I claim?"


@pytest.fixture
def accounts(store_dir, tmp_path, monkeypatch) -> Accounts:
    """The page on the session's knowledge base with one logged turn, and three accounts."""
    monkeypatch.setenv("PASSENGER_KB_STORE", str(store_dir))
    monkeypatch.setenv("PASSENGER_FEEDBACK_DB", str(tmp_path / "feedback.sqlite3"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    accounts = Accounts(engine_for(f"sqlite:///{tmp_path / 'feedback.sqlite3'}"))
    accounts.create("vera", Role.VOLUNTEER, PASSWORD, "vera@example.org")
    accounts.create("max", Role.MAINTAINER, PASSWORD, "max@example.org")
    accounts.create("dora", Role.MAINTAINER, PASSWORD, "dora@example.org")
    accounts.set_disabled("dora", True)
    send(open_page(), MESSAGE)
    return accounts


def review(secrets: dict | None = None, user: dict | None = None) -> AppTest:
    at = AppTest.from_function(review_script, default_timeout=TIMEOUT)
    if secrets is not None:
        at.secrets = secrets
    if user is not None:
        at.user = user
    at.run()
    assert not at.exception, at.exception
    return at


def labels(at: AppTest) -> set[str]:
    return {button.label for button in at.button} | {expander.label for expander in at.expander}


def maintainer_only(at: AppTest) -> dict[str, bool]:
    """Which of a maintainer's powers the page offers."""
    shown = labels(at)
    return {
        "export": bool(at.download_button),
        "rebuild": TEXT["en"]["review_rebuild"] in shown,
        "accounts": TEXT["en"]["review_accounts_title"] in shown,
        "bank additions": any(label.startswith(TEXT["en"]["review_waiting_title"].split("{")[0]) for label in shown),
    }


def test_a_volunteer_judges_and_proposes_but_cannot_export_rebuild_or_accept(accounts, tmp_path):
    at = sign_in(review(), "vera", PASSWORD)
    assert TEXT["en"]["review_signed_in_as"].format(name="vera", role="volunteer") in [c.value for c in at.caption]
    assert not any(maintainer_only(at).values())
    at.button_group[0].set_value("relevant").run()
    next(button for button in at.button if button.label == TEXT["en"]["review_propose_bank"]).click().run()
    assert not at.exception
    (turn,) = FeedbackLog(tmp_path / "feedback.sqlite3").reviewed_turns()
    assert turn.reviewed_by == "vera" and turn.shown[0].relevant
    assert [addition.entry.unit for addition in FeedbackLog(tmp_path / "feedback.sqlite3").bank_additions(False)]


def test_a_maintainer_may_export_rebuild_accept_and_manage_accounts(accounts, tmp_path):
    log = FeedbackLog(tmp_path / "feedback.sqlite3")
    log.propose_bank_entries([BankEntry("SOR-2019-150", "s19", "en", "What is owed for a long delay?")])
    at = sign_in(review(), "max", PASSWORD)
    assert all(maintainer_only(at).values())
    assert TEXT["en"]["review_accept"] in labels(at)
    next(button for button in at.button if button.label == TEXT["en"]["review_reject"]).click().run()
    assert not at.exception and log.bank_additions(accepted=False) == []


def test_a_maintainer_creates_and_disables_accounts_on_the_page(accounts):
    at = sign_in(review(), "max", PASSWORD)
    field = {field.label: field for field in at.text_input}
    field[TEXT["en"]["review_new_name"]].input("nina")
    field[TEXT["en"]["review_new_password"]].input(PASSWORD)
    next(button for button in at.button if button.label == TEXT["en"]["review_create"]).click().run()
    assert accounts.get("nina").role is Role.VOLUNTEER
    at.button(key="account-vera").click().run()
    assert accounts.get("vera").disabled
    refused = sign_in(review(), "vera", PASSWORD)
    assert TEXT["en"]["review_disabled"] in [error.value for error in refused.error] and not refused.button_group


def test_a_disabled_account_cannot_sign_in(accounts):
    at = sign_in(review(), "dora", PASSWORD)
    assert TEXT["en"]["review_disabled"] in [error.value for error in at.error]
    assert not at.download_button and not at.button_group


def test_an_account_disabled_while_signed_in_is_signed_out_at_the_next_step(accounts):
    at = sign_in(review(), "max", PASSWORD)
    accounts.set_disabled("max", True)
    at.run()
    assert not at.download_button and [field.label for field in at.text_input][:1] == [
        TEXT["en"]["review_account_name"]
    ]


def test_with_an_identity_provider_the_page_offers_its_sign_in_only(accounts):
    at = review({"auth": AUTH}, {"is_logged_in": False})
    assert TEXT["en"]["review_sign_in_provider"] in labels(at) and not at.text_input


@pytest.mark.parametrize(
    ("email", "powers"),
    [("max@example.org", True), ("vera@example.org", False)],
)
def test_the_providers_user_gets_the_role_of_the_account_with_their_email(accounts, email, powers):
    at = review({"auth": AUTH}, {"is_logged_in": True, "email": email})
    assert at.button_group, "signed in: the turns can be judged"
    assert set(maintainer_only(at).values()) == {powers}


@pytest.mark.parametrize("email", ["stranger@example.org", "dora@example.org"])
def test_a_provider_user_without_an_enabled_account_is_refused(accounts, email):
    at = review({"auth": AUTH}, {"is_logged_in": True, "email": email})
    refusal = TEXT["en"]["review_provider_unknown"].format(email=escape_markdown(email))
    assert [error.value for error in at.error] == [refusal]
    assert not at.button_group and not at.download_button


def test_judgements_name_the_provider_account_in_the_export(accounts, tmp_path):
    at = review({"auth": AUTH}, {"is_logged_in": True, "email": "max@example.org"})
    at.button_group[0].set_value("relevant").run()
    export = FeedbackLog(tmp_path / "feedback.sqlite3").export_jsonl()
    assert '"reviewed_by": "max"' in export and MESSAGE in export


def test_a_fresh_machine_with_no_account_says_how_to_make_the_first(store_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PASSENGER_FEEDBACK_DB", str(tmp_path / "feedback.sqlite3"))
    at = review()
    assert "python -m review.accounts create" in at.info[0].value and not at.text_input


def test_the_review_page_speaks_french_from_its_wording_files(accounts):
    at = review()
    at.session_state["lang"] = "fr"
    at = sign_in(at.run(), "max", PASSWORD)
    french = TEXT["fr"]
    assert [title.value for title in at.title] == [french["review_title"]]
    assert at.download_button[0].label == french["review_export"]
    assert french["review_filter_all"] in at.selectbox(key="review-filter").options
    assert french["review_add_unit"] in labels(at) and french["review_add_missing_title"] in labels(at)
    assert set(at.button_group[0].options) == {french["review_relevant"], french["review_not_relevant"]}
    assert any(caption.value.startswith("Échange") for caption in at.caption)
