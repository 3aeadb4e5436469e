"""Where the flight went, as the law turns on it: within Canada or across a border."""

from __future__ import annotations

import pytest

from query_understanding.flight_scope import flight_reach


@pytest.mark.parametrize(
    ("text", "reach"),
    [
        ("WestJet cancelled our Toronto to Calgary flight", "domestic"),
        ("YYZ-YVR, 6 hours late", "domestic"),
        ("Mon vol intérieur a été annulé", "domestic"),
        ("I live in Toronto and flew Calgary to Vancouver", "domestic"),
        ("Air Inuit from Kuujjuaq to Montréal bent my wheelchair", "domestic"),
        ("Calm Air, Rankin Inlet to Winnipeg, four hours late", "domestic"),
        ("Air Transat, Montreal to Paris, they refused to follow their own rules", "international"),
        ("My flight to the USA was delayed", "international"),
        ("Flair to Cancun, bag never showed up", "international"),
        ("LHR to YYZ, the fare rules said otherwise", "international"),
        ("My international flight was delayed", "international"),
        ("My flight from Toronto was delayed", None),
        ("They charged me a fee their tariff does not list", None),
    ],
)
def test_a_flight_is_domestic_or_international_only_when_the_text_says_so(text, reach):
    assert flight_reach(text) == reach
