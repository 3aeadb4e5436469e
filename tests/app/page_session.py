"""The passenger and review pages driven by Streamlit's AppTest: the steps every page test takes."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app.py"
TIMEOUT = 120


def open_page() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not at.exception
    return at


def send(at: AppTest, message: str) -> AppTest:
    at.chat_input[0].set_value(message).run()
    assert not at.exception, at.exception
    return at


def open_review() -> AppTest:
    at = AppTest.from_function(review_script, default_timeout=TIMEOUT).run()
    assert not at.exception
    return at


def sign_in(review: AppTest, name: str, password: str) -> AppTest:
    """The review page's sign-in form filled and sent."""
    review.text_input[0].input(name)
    review.text_input[1].input(password)
    review.button[0].click().run()
    assert not review.exception, review.exception
    return review


def review_script():
    import app

    app.review_page(app.page_settings())
