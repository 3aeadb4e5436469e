"""Identifiers in the shapes passengers type are found by kind; what the law needs stays."""

from __future__ import annotations

import pytest

from foundation.redact import (
    BOOKING,
    CARD,
    EMAIL,
    LOYALTY,
    NAME,
    PHONE,
    TICKET,
    Pseudonyms,
    find_identifiers,
    luhn_valid,
    redact,
)


@pytest.mark.parametrize(
    ("text", "kind", "identifier"),
    [
        ("call me at 514-555-0199 tonight", PHONE, "514-555-0199"),
        ("my cell is (416) 555-0123", PHONE, "(416) 555-0123"),
        ("text 4165550123 please", PHONE, "4165550123"),
        ("toll free 1-800-667-2262", PHONE, "1-800-667-2262"),
        ("mon portable : 06 12 34 56 78", PHONE, "06 12 34 56 78"),
        ("joignable au +33 6 12 34 56 78", PHONE, "+33 6 12 34 56 78"),
        ("UK mobile +44 7911 123456", PHONE, "+44 7911 123456"),
        ("from abroad 011 33 6 12 34 56 78", PHONE, "011 33 6 12 34 56 78"),
        ("phone 555-0199 after 6", PHONE, "555-0199"),
        ("paid with 4111 1111 1111 1111 at the desk", CARD, "4111 1111 1111 1111"),
        ("Amex 3782 822463 10005", CARD, "3782 822463 10005"),
        ("card number 5500-0000-0000-0004", CARD, "5500-0000-0000-0004"),
        ("ticket 014 2345678901", TICKET, "014 2345678901"),
        ("e-ticket number 0142345678901", TICKET, "0142345678901"),
        ("billet n° 014-2345678901", TICKET, "014-2345678901"),
        ("my Aeroplan number is 123 456 789", LOYALTY, "123 456 789"),
        ("Flying Blue 1234567890", LOYALTY, "1234567890"),
        ("numéro de membre WestJet Rewards : 987654321", LOYALTY, "987654321"),
        ("booking QX7T2B", BOOKING, "QX7T2B"),
        ("confirmation code is abc12d", BOOKING, "abc12d"),
        ("code de réservation KXQJTB", BOOKING, "KXQJTB"),
        ("write to marie.t+air@example.co.uk", EMAIL, "marie.t+air@example.co.uk"),
        ("Je suis Élise Gagnon et mon vol", NAME, "Élise Gagnon"),
    ],
)
def test_each_shape_is_found_as_its_kind(text, kind, identifier):
    assert (kind, identifier) in [(found.kind, found.text) for found in find_identifiers(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Flight AC 870 from YUL to CDG on 2024-05-12 was 26 hours late; I paid $1,240.",
        "WS1234 Calgary-Toronto, TS456, PD 2235 and F8 101 were all cancelled",
        "Vol AC1234 du 12/05/2024, retard de 5 h 30, 1 200 $ de frais, siège 23A, porte B12",
        "I spent 400 CAD on a hotel for 2 nights after a 9-hour delay at YYZ terminal 1",
        "Under SOR-2019-150 s19, a 3-hour delay gives $400 within 120 days",
        "A 13-hour flight, 1 child of 4 years, 2 bags of 23 kg",
        "Cancelled.",
    ],
)
def test_what_the_law_needs_stays(text):
    assert redact(text) == text


def test_luhn():
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")


def test_pseudonyms_number_each_distinct_identifier_and_restore_it():
    pseudonyms = Pseudonyms()
    hidden = pseudonyms.hide(["I'm Marie Tremblay, 514-555-0199, my son Liam", "Marie here, also 613-555-0142"])
    assert hidden == ["I'm [name], [phone], my son [name 2]", "[name] here, also [phone 2]"]
    assert (
        pseudonyms.restore("Can [name] call [phone 2]? [card number]")
        == "Can Marie Tremblay call 613-555-0142? [card number]"
    )
