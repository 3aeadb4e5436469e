"""`streamlit run app.py`: the passenger page and the volunteer review page.

This script only arranges widgets. What a message does lives in page/conversation.py, the log in
review/log.py, the fixed wording in page/wording.py, the search in retrieval/. The settings
(foundation/settings.py) are read once per page run, in `main`, and handed down. Text from a passenger, from the
language model or from the law is always shown with st.text, which cannot format it or turn an address into a
link; Markdown (escaped) carries only the page's own wording and the law's titles. The only links on the
passenger page are the official sources.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from foundation.settings import Settings
from foundation.text import MAX_MESSAGE_CHARS, detect_language
from ingest.build import build_knowledge_base
from kb.passage import UnitId
from kb.store import (
    CURRENT,
    PASSAGES,
    SOURCES_DIR,
    BuildLockedError,
    KnowledgeBase,
    ModelMismatchError,
    StoreDamagedError,
    StoreMissingError,
    StoreUnreachableError,
)
from page.conversation import Conversation, Exchange, as_shown, interface_language
from page.marking import marked_html, part_reference
from page.wording import (
    LANGUAGE_LABELS,
    built_at,
    consolidation_dates,
    escape_markdown,
    instrument_lines,
    join_words,
    language_name,
    say,
)
from retrieval.engine import SearchEngine
from retrieval.outcome import Outcome
from retrieval.results import Hit
from retrieval.search import load_engine
from review.accounts import Account, AccountError, Accounts, Action, Role
from review.log import (
    FEEDBACK_FILTERS,
    ITEM_TYPES,
    MAX_NOTE_CHARS,
    FeedbackLog,
    FeedbackLogError,
    LoggedTurn,
    ShownPassage,
    parse_unit_id,
)
from review.storage import accepted_bank_entries, database, database_url, engine_for, first_line
from review.storage import where as storage_where

log = logging.getLogger(__name__)

SCOPE_CHOICES = ("within", "to_or_from", "neither")
RELEVANCE = ("relevant", "not_relevant")
PASSENGER_VERDICT = {True: "review_helpful", False: "review_not_helpful", None: "review_no_feedback"}


def page_settings() -> Settings:
    """The environment's settings, the review password else from `.streamlit/secrets.toml`."""
    try:
        secrets = dict(st.secrets)
    except Exception:  # no secrets file, or one that does not parse: the environment alone decides
        secrets = None
    return Settings.from_environment(secrets=secrets)


@st.cache_resource(show_spinner=False, max_entries=2)
def search_engine(store_dir: str, chroma_url: str, generation: str) -> SearchEngine:
    """The knowledge base and its indexes, loaded once per process and generation, so a page follows a new
    build by `python -m ingest` at its next rerun."""
    return load_engine(Path(store_dir), chroma_url)


def review_accounts(settings: Settings) -> Accounts:
    """The accounts live in the log's database: one database, SQLite or PostgreSQL, for every process."""
    return _accounts(database_url(settings))


@st.cache_resource(show_spinner=False)
def _accounts(url: str) -> Accounts:
    return Accounts(engine_for(url))


def feedback_log(settings: Settings) -> FeedbackLog:
    return _feedback_log(database_url(settings), settings.retention_days)


@st.cache_resource(show_spinner=False)
def _feedback_log(url: str, retention_days: int) -> FeedbackLog:
    return FeedbackLog(url, retention_days)


def open_engine(settings: Settings) -> tuple[SearchEngine | None, str, str]:
    """The engine, or the interface text key saying why there is none and the cause to name."""
    try:
        generation = (settings.store_dir / CURRENT).read_text(encoding="utf-8").strip()
    except OSError:
        generation = ""
    try:
        return search_engine(str(settings.store_dir), settings.chroma_url, generation), "", ""
    except StoreMissingError:
        return None, "kb_missing", ""
    except ModelMismatchError:
        return None, "kb_mismatch", ""
    except StoreDamagedError as error:
        return None, "kb_damaged", error.cause
    except StoreUnreachableError as error:
        return None, "kb_server_down", str(error)
    except Exception as error:  # whatever else: say so plainly and offer the rebuild that usually fixes it
        log.exception("could not open the knowledge base")
        return None, "kb_damaged", f"{type(error).__name__}: {error}"


def reported(batches: Iterable, bar, text: str) -> Iterator:
    """The build's embedding batches, moving `bar` as each one is done."""
    batches = list(batches)
    for done, batch in enumerate(batches, start=1):
        yield batch
        bar.progress(done / len(batches), text=text)


def offer_to_build(lang: str, problem: str, cause: str, settings: Settings) -> None:
    """Say why nothing can be searched; a rebuild from the page is a maintainer's action."""
    st.warning(say(lang, problem, cause=escape_markdown(cause)))
    if problem == "kb_server_down":
        return
    st.info(say(lang, "kb_rebuild_command"))
    account = signed_in_account(review_accounts(settings), settings)
    if account is None or not account.may(Action.REBUILD):
        st.caption(say(lang, "kb_rebuild_sign_in"))
        return
    if st.button(say(lang, "kb_build"), type="primary"):
        rebuild(lang, settings)


def rebuild(lang: str, settings: Settings) -> None:
    """Build the knowledge base from the shipped sources, with a progress bar, and show the page again."""
    bar = st.progress(0.0, text=say(lang, "kb_building"))
    try:
        build_knowledge_base(
            SOURCES_DIR,
            settings.store_dir,
            lambda batches: reported(batches, bar, say(lang, "kb_building")),
            chroma_url=settings.chroma_url,
            additions=accepted_bank_entries(database(settings)),
        )
    except BuildLockedError:
        st.warning(say(lang, "kb_build_running"))
        return
    except Exception as error:  # the maintainer sees what failed instead of a stack trace
        log.exception("knowledge base build failed")
        st.error(say(lang, "kb_build_failed", error=error))
        return
    search_engine.clear()
    st.rerun()


# -- session state changes, run as widget callbacks before the page is drawn ---------------------------------


def take_message() -> None:
    message = st.session_state.get("chat_message") or ""
    st.session_state.pending = {"kind": "message", "text": message}
    st.session_state.lang = st.session_state.lang_choice = interface_language(st.session_state.lang, message)


def take_scope(choice: str, label: str) -> None:
    st.session_state.pending = {"kind": "scope", "choice": choice, "label": label}


def take_language() -> None:
    st.session_state.lang = st.session_state.lang_choice


def new_conversation() -> None:
    st.session_state.conversation = Conversation()
    st.session_state.pop("pending", None)


def save_feedback(feedback: FeedbackLog, shown_id: int) -> None:
    rating = st.session_state.get(f"helpful-{shown_id}")
    note = st.session_state.get(f"note-{shown_id}", "")
    try:
        feedback.record_feedback(shown_id, None if rating is None else rating == 1, note)
    except FeedbackLogError:  # logged as a warning by the log itself, and shown to maintainers in the sidebar
        st.session_state[f"saved-{shown_id}"] = "feedback_failed"
    else:
        st.session_state[f"saved-{shown_id}"] = "feedback_thanks"


# -- the passenger page ---------------------------------------------------------------------------------------


def passenger_page(settings: Settings) -> None:
    lang = st.session_state.lang
    st.title(say(lang, "page_title"))
    feedback = feedback_log(settings)
    with st.spinner(say(lang, "kb_opening")):  # the first page run of a process loads the engine: never a blank page
        engine, problem, cause = open_engine(settings)
    knowledge_base = engine.knowledge_base if engine else None
    notice = say(lang, "notice")
    if knowledge_base and (dates := consolidation_dates(knowledge_base.sources)):
        notice += " " + say(lang, "notice_dates", dates=join_words(lang, dates))
    st.caption(escape_markdown(notice))
    st.caption(escape_markdown(say(lang, "privacy_notice", days=feedback.retention)))
    show_sidebar(lang, knowledge_base, settings)
    if engine is None:
        offer_to_build(lang, problem, cause, settings)
        return

    conversation: Conversation = st.session_state.setdefault("conversation", Conversation())
    pending = st.session_state.pop("pending", None)
    if not conversation.exchanges and not pending:
        st.info(say(lang, "intro"))
    for index, exchange in enumerate(conversation.exchanges):
        with st.chat_message("user"):
            st.text(exchange.message, width="stretch")
        with st.chat_message("assistant"):
            is_latest = index == len(conversation.exchanges) - 1
            show_reply(exchange, index, lang, feedback, offer_scope=is_latest and not pending)
    if pending:
        shown_as = as_shown(pending["text"]) if pending["kind"] == "message" else pending["label"]
        with st.chat_message("user"):
            st.text(shown_as, width="stretch")
        with st.chat_message("assistant"):
            with st.spinner(say(lang, "searching")):
                exchange = run_pending(pending, conversation, engine, feedback, settings)
            show_reply(exchange, len(conversation.exchanges) - 1, lang, feedback, offer_scope=True)
    if feedback.write_failure:  # after this message's write, so the line is there as soon as one fails
        st.sidebar.caption(say(lang, "log_failed"))
    st.chat_input(say(lang, "chat_placeholder"), key="chat_message", on_submit=take_message)


def take_message_from_link() -> None:
    """`?q=...` asks a question once per session, so a question can be shared as a link."""
    question = st.query_params.get("q")
    if question and not st.session_state.get("asked_from_link"):
        st.session_state.asked_from_link = True
        st.session_state.pending = {"kind": "message", "text": question}
        st.session_state.lang = st.session_state.lang_choice = interface_language(st.session_state.lang, question)


def run_pending(
    pending: dict, conversation: Conversation, engine: SearchEngine, feedback: FeedbackLog, settings: Settings
) -> Exchange:
    if pending["kind"] == "scope":
        return conversation.answer_flight_scope(pending["choice"], pending["label"], engine, feedback, settings.llm)
    return conversation.ask(pending["text"], engine, feedback, settings.llm)


def show_sidebar(lang: str, knowledge_base: KnowledgeBase | None, settings: Settings) -> None:
    with st.sidebar:
        if "lang_choice" not in st.session_state:
            st.session_state.lang_choice = lang
        st.radio(
            say(lang, "sidebar_language"),
            list(LANGUAGE_LABELS),
            format_func=LANGUAGE_LABELS.get,
            key="lang_choice",
            on_change=take_language,
            horizontal=True,
        )
        st.button(say(lang, "new_conversation"), on_click=new_conversation, icon=":material/add_comment:")
        st.subheader(say(lang, "kb_status"))
        if knowledge_base:
            meta = knowledge_base.meta
            st.caption(say(lang, "kb_passages", count=meta["counts"][PASSAGES.collection]))
            for line in instrument_lines(knowledge_base.sources, lang):
                st.caption(escape_markdown(line))
            st.caption(escape_markdown(say(lang, "kb_built", built_at=built_at(meta))))
        config = settings.llm
        if settings.problems:
            for problem in settings.problems:
                st.warning(escape_markdown(say(lang, "llm_settings_bad", problem=problem)))
        elif config is None:
            st.caption(say(lang, "llm_not_configured"))
        else:
            where = config.where if config.base_url else say(lang, "llm_default_endpoint")
            st.text(say(lang, "llm_configured", model=config.model, where=where))  # an address, never a link
        if knowledge_base:
            licence = knowledge_base.sources.licence
            st.caption(f"{escape_markdown(licence.attribution)} [{escape_markdown(licence.name)}](<{licence.url}>)")


def show_reply(exchange: Exchange, index: int, lang: str, feedback: FeedbackLog, offer_scope: bool) -> None:
    if exchange.refusal is Outcome.FLIGHT_NOT_IN_CANADA:
        st.info(say(lang, exchange.refusal))
    elif exchange.refusal:
        st.warning(say(lang, exchange.refusal, length=exchange.length, limit=MAX_MESSAGE_CHARS))
    found = exchange.search_result
    if found is None:
        return
    if found.outside_coverage:
        st.info(say(lang, found.outside_coverage))
        return
    if not found.understanding.questions:
        st.warning(say(lang, Outcome.EMPTY))
        return
    st.markdown(f"**{say(lang, 'questions_searched')}**", help=say(lang, "questions_searched_help"))
    for question_index, result in enumerate(found.results):
        st.text(f"{question_index + 1}. {result.question}", width="stretch")
        above = exchange.shown_above[question_index] if exchange.shown_above else ()
        if above:
            titles = escape_markdown(join_words(lang, [f"“{t}”" for t in above]))
            st.info(say(lang, result.outcome or "also_shown_above", titles=titles))
        elif result.outcome:
            st.info(say(lang, result.outcome))
        shown_ids = exchange.shown_ids[question_index] if exchange.shown_ids else ()
        for rank, hit in enumerate(result.hits):
            show_passage(hit, shown_ids[rank] if shown_ids else None, lang, feedback, expanded=rank == 0)
    if found.understanding.note:
        st.caption(escape_markdown(say(lang, "offline_note", note=found.understanding.note)))
    if offer_scope and exchange.asks_flight_scope:
        st.markdown(f"**{say(lang, Outcome.ASK_FLIGHT_SCOPE)}**")
        with st.container(horizontal=True):
            for choice in SCOPE_CHOICES:
                label = say(lang, f"scope_{choice}")
                st.button(label, key=f"scope-{index}-{choice}", on_click=take_scope, args=(choice, label))


def show_passage(hit: Hit, shown_id: int | None, lang: str, feedback: FeedbackLog, expanded: bool) -> None:
    passage = hit.passage
    with st.expander(escape_markdown(passage.title), expanded=expanded):
        st.caption(f"{say(lang, 'where')} {escape_markdown(passage.where)}")
        for part in hit.parts:  # the law's words that answer, first; the whole unit follows with them marked
            key, values = part_reference(passage, part)
            st.markdown(f"**{escape_markdown(say(lang, key, **values))}**")
            st.text(part.text, width="stretch")
        if hit.parts:
            st.html(marked_html(passage.text, hit.parts))
        else:
            st.text(passage.text, width="stretch")
        link = say(lang, "official_link" if passage.kind == "law" else "guide_link")
        st.markdown(f"[{link}](<{passage.url}>) · {say(lang, 'language')} {language_name(lang, passage.lang)}")
        if shown_id is None:
            return
        st.caption(say(lang, "helpful_prompt"))
        st.feedback("thumbs", key=f"helpful-{shown_id}", on_change=save_feedback, args=(feedback, shown_id))
        if saved := st.session_state.get(f"saved-{shown_id}"):
            st.text_input(
                say(lang, "feedback_note"),
                key=f"note-{shown_id}",
                max_chars=MAX_NOTE_CHARS,
                on_change=save_feedback,
                args=(feedback, shown_id),
            )
            st.caption(say(lang, saved))


# -- the volunteer review page -------------------------------------------------------------------------------


def review_page(settings: Settings) -> None:
    lang = st.session_state.get("lang", "en")
    st.title(say(lang, "review_title"))
    try:
        accounts = review_accounts(settings)
        account = signed_in_account(accounts, settings)
        if account is None:
            sign_in(accounts, settings, lang)
            return
    except SQLAlchemyError as error:  # the accounts live in the log's database: say where and why, never a traceback
        where = escape_markdown(storage_where(database_url(settings)))
        st.error(say(lang, "review_database_broken", where=where, cause=escape_markdown(first_line(error))))
        return
    st.caption(
        say(lang, "review_signed_in_as", name=escape_markdown(account.name), role=say(lang, f"role_{account.role}"))
    )
    st.button(say(lang, "review_sign_out"), on_click=sign_out, args=(settings,))
    feedback = feedback_log(settings)
    if problem := st.session_state.pop("review_error", None):
        st.error(say(lang, "review_not_saved", problem=escape_markdown(problem)))
    if feedback.write_failure:
        st.warning(say(lang, "review_log_write_failed", failure=escape_markdown(feedback.write_failure)))
    if account.may(Action.MANAGE_ACCOUNTS):
        manage_accounts(accounts, lang)
    if account.may(Action.ACCEPT_BANK_ENTRY):
        accept_bank_additions(feedback, lang)
    if account.may(Action.REBUILD) and st.button(say(lang, "review_rebuild")):
        rebuild(lang, settings)
    try:
        show_review(feedback, settings, account, lang)
    except FeedbackLogError as error:  # a broken or unreadable log file: say what and where, never a traceback
        log.warning("review page: %s", error)
        st.error(say(lang, "review_log_unreadable", error=escape_markdown(str(error))))


def signed_in_account(accounts: Accounts, settings: Settings) -> Account | None:
    """The account this session signed in as, read afresh at every run, so that disabling it takes effect at
    once; through the identity provider, the account holding the provider's e-mail."""
    if settings.identity_provider:
        account = accounts.by_email(st.user.get("email")) if st.user.is_logged_in else None
    else:
        name = st.session_state.get("account")
        account = accounts.get(name) if name else None
    return account if account and not account.disabled else None


def sign_in(accounts: Accounts, settings: Settings, lang: str) -> None:
    if settings.identity_provider:
        if st.user.is_logged_in:  # the provider knows them, the accounts do not (or no longer)
            st.error(say(lang, "review_provider_unknown", email=escape_markdown(str(st.user.get("email", "")))))
            st.button(say(lang, "review_sign_out"), on_click=sign_out, args=(settings,))
        else:
            st.button(say(lang, "review_sign_in_provider"), on_click=st.login, type="primary")
        return
    if not accounts.all():
        st.info(say(lang, "review_no_accounts"))
        return
    with st.form("review-sign-in"):
        name = st.text_input(say(lang, "review_account_name"))
        password = st.text_input(say(lang, "review_password"), type="password")
        submitted = st.form_submit_button(say(lang, "review_sign_in"))
    if not submitted:
        return
    attempt = accounts.sign_in(name, password, st.context.ip_address or "unknown")
    if attempt.account:
        st.session_state.account = attempt.account.name
        st.rerun()
    elif attempt.locked_for:
        st.error(say(lang, "review_locked", seconds=f"{attempt.locked_for:.0f}"))
    elif attempt.disabled:
        st.error(say(lang, "review_disabled"))
    else:
        st.error(say(lang, "review_wrong_password"))


def sign_out(settings: Settings) -> None:
    st.session_state.pop("account", None)
    if settings.identity_provider:
        st.logout()


def manage_accounts(accounts: Accounts, lang: str) -> None:
    with st.expander(say(lang, "review_accounts_title")):
        for other in accounts.all():
            left, right = st.columns([4, 1])
            state = say(lang, "review_account_disabled") if other.disabled else ""
            left.text(f"{other.name} · {say(lang, f'role_{other.role}')} · {other.email or ''} {state}")
            right.button(
                say(lang, "review_enable" if other.disabled else "review_disable"),
                key=f"account-{other.name}",
                on_click=accounts.set_disabled,
                args=(other.name, not other.disabled),
            )
        with st.form("new-account", clear_on_submit=True, border=False):
            name = st.text_input(say(lang, "review_new_name"))
            role = st.selectbox(say(lang, "review_new_role"), list(Role), format_func=lambda r: say(lang, f"role_{r}"))
            password = st.text_input(say(lang, "review_new_password"), type="password")
            email = st.text_input(say(lang, "review_new_email"))
            if st.form_submit_button(say(lang, "review_create")):
                try:
                    accounts.create(name, role, password or None, email or None)
                except AccountError as error:
                    st.error(escape_markdown(str(error)))
                else:
                    st.success(say(lang, "review_created"))


def accept_bank_additions(feedback: FeedbackLog, lang: str) -> None:
    """Volunteers' proposed bank entries, each accepted or rejected by a maintainer; `python -m ingest` builds the
    accepted ones into the next generation."""
    waiting = feedback.bank_additions(accepted=False)
    with st.expander(say(lang, "review_waiting_title", count=len(waiting))):
        if not waiting:
            st.caption(say(lang, "review_nothing_waiting"))
        for addition in waiting:
            entry = addition.entry
            st.text(f"{entry.doc} {entry.unit} [{entry.lang}]: {entry.text}", width="stretch")
            left, right = st.columns(2)
            left.button(
                say(lang, "review_accept"),
                key=f"accept-{addition.id}",
                on_click=review_action,
                args=(feedback.accept_bank_addition, addition.id),
            )
            right.button(
                say(lang, "review_reject"),
                key=f"reject-{addition.id}",
                on_click=review_action,
                args=(feedback.reject_bank_addition, addition.id),
            )


def show_review(feedback: FeedbackLog, settings: Settings, account: Account, lang: str) -> None:
    if account.may(Action.EXPORT):
        st.download_button(
            say(lang, "review_export"),
            data=feedback.export_jsonl(),
            file_name="feedback-judgements.jsonl",
            mime="application/jsonl",
            help=say(lang, "review_export_help"),
        )
    engine, _, _ = open_engine(settings)  # after the export, which needs no knowledge base
    chosen = st.selectbox(
        say(lang, "review_show"),
        FEEDBACK_FILTERS,
        format_func=lambda choice: say(lang, f"review_filter_{choice}"),
        key="review-filter",
    )
    turns = feedback.recent_turns(chosen)
    if not turns:
        st.info(say(lang, "review_no_turns"))
    for turn in turns:
        show_logged_turn(turn, feedback, engine, account, lang)


def show_logged_turn(
    turn: LoggedTurn,
    feedback: FeedbackLog,
    engine: SearchEngine | None,
    account: Account,
    lang: str,
) -> None:
    with st.container(border=True):
        writer = say(lang, f"review_writer_{turn.path}") if turn.path in ("llm", "offline") else turn.path
        heading = say(
            lang,
            "review_turn_reviewed" if turn.reviewed_at else "review_turn",
            id=turn.id,
            asked_at=turn.asked_at,
            writer=writer,
            reviewed_at=turn.reviewed_at,
        )
        st.caption(escape_markdown(heading))
        for earlier in turn.history:
            st.text(say(lang, "review_earlier", message=earlier), width="stretch")
        st.text(turn.message, width="stretch")
        if turn.outside_coverage:
            st.caption(say(lang, "review_outside_coverage", reason=escape_markdown(turn.outside_coverage)))
        for question_index, question in enumerate(turn.questions):
            st.text(f"{question_index + 1}. {question}", width="stretch")
            for shown in (s for s in turn.shown if s.question_index == question_index):
                show_judged_passage(shown, feedback, engine, account, lang)
        for missing in turn.missing:
            left, right = st.columns([5, 1])
            left.caption(
                escape_markdown(say(lang, "review_added", unit=f"{missing.doc} {missing.unit}", why=missing.why))
            )
            right.button(
                say(lang, "review_remove"),
                key=f"remove-missing-{missing.id}",
                on_click=review_action,
                args=(feedback.remove_missing_unit, missing.id),
            )
        with st.expander(say(lang, "review_add_missing_title")):
            with st.form(f"missing-{turn.id}", clear_on_submit=True, border=False):
                unit_text = st.text_input(say(lang, "review_missing_unit"))
                why = st.text_input(say(lang, "review_missing_why"), max_chars=MAX_NOTE_CHARS)
                if st.form_submit_button(say(lang, "review_add_unit")):
                    add_missing(turn.id, unit_text, why, feedback, engine, account, lang)
            with st.form(f"review-{turn.id}", border=False):
                chosen_type = turn.review_type or turn.guessed_type
                item_type = st.selectbox(say(lang, "review_item_type"), ITEM_TYPES, index=ITEM_TYPES.index(chosen_type))
                note = st.text_input(say(lang, "review_note"), value=turn.review_note, max_chars=MAX_NOTE_CHARS)
                if st.form_submit_button(say(lang, "review_save")):
                    feedback.save_review(turn.id, item_type, note, by=account.name)
                    st.rerun()
        entries = turn.bank_entries(detect_language(turn.message))
        if entries and st.button(
            say(lang, "review_propose_bank"), key=f"bank-{turn.id}", help=say(lang, "review_propose_bank_help")
        ):
            feedback.propose_bank_entries(entries)
            st.success(say(lang, "review_proposed", count=len(entries)))
            for entry in entries:
                st.text(f"{entry.doc} {entry.unit} [{entry.lang}]: {entry.text}", width="stretch")


def show_judged_passage(
    shown: ShownPassage, feedback: FeedbackLog, engine: SearchEngine | None, account: Account, lang: str
) -> None:
    key = f"relevant-{shown.id}"
    if key not in st.session_state and shown.relevant is not None:
        st.session_state[key] = "relevant" if shown.relevant else "not_relevant"
    passenger = say(lang, PASSENGER_VERDICT[shown.helpful])
    note = f" ({shown.feedback_note})" if shown.feedback_note else ""
    details = say(
        lang,
        "review_passage_details",
        title=escape_markdown(shown.title),
        language=shown.lang,
        score=f"{shown.score:.2f}",
        passenger=escape_markdown(passenger + note),
    )
    left, right = st.columns([3, 2])
    left.markdown(f"[{escape_markdown(f'{shown.doc} {shown.unit}')}](<{shown.url}>) {details}")
    right.segmented_control(
        say(lang, "review_relevance"),
        RELEVANCE,
        format_func=lambda choice: say(lang, f"review_{choice}"),
        key=key,
        on_change=review_action,
        args=(save_judgement, feedback, shown.id, key, account.name),
        label_visibility="collapsed",
    )
    if engine is not None and (pieces := engine.units.get(UnitId(shown.doc, shown.unit), {}).get(shown.lang)):
        with left.expander(say(lang, "review_unit_text")):
            st.text("\n".join(piece.text for piece in pieces), width="stretch")


def review_action(action, *args) -> None:
    """A volunteer's change made in a widget callback; a fault of the log is shown on the page, not raised."""
    try:
        action(*args)
    except FeedbackLogError as error:
        log.warning("review page: %s", error)
        st.session_state.review_error = str(error)


def save_judgement(feedback: FeedbackLog, shown_id: int, key: str, by: str) -> None:
    choice = st.session_state.get(key)
    feedback.judge(shown_id, None if choice is None else choice == "relevant", by=by)


def add_missing(
    turn_id: int,
    unit_text: str,
    why: str,
    feedback: FeedbackLog,
    engine: SearchEngine | None,
    account: Account,
    lang: str,
) -> None:
    unit = parse_unit_id(unit_text)
    if unit is None:
        st.error(say(lang, "review_unit_format"))
    elif engine is not None and unit not in engine.units:
        st.error(say(lang, "review_unit_unknown", unit=escape_markdown(" ".join(unit))))
    else:
        feedback.add_missing_unit(turn_id, *unit, why, by=account.name)
        st.rerun()


def main() -> None:
    st.set_option("client.toolbarMode", "viewer")  # passengers have no use for the developer menu
    st.session_state.setdefault("lang", "en")
    st.set_page_config(page_title=say(st.session_state.lang, "tab_title"), page_icon=":material/flight:")
    take_message_from_link()
    lang = st.session_state.lang
    settings = page_settings()
    pages = [
        st.Page(
            lambda: passenger_page(settings),
            title=say(lang, "passenger_nav"),
            icon=":material/chat:",
            url_path="ask",
            default=True,
        ),
        st.Page(
            lambda: review_page(settings),
            title=say(lang, "review_nav"),
            icon=":material/rate_review:",
            url_path="review",
        ),
    ]
    st.navigation(pages).run()


if __name__ == "__main__":
    main()
