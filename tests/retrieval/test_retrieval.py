"""Retrieval on the real knowledge base: units, threshold, French routing, coverage, garbage in."""

from __future__ import annotations

import copy
from dataclasses import replace

import httpx
import pytest

from foundation.settings import LLMSettings
from foundation.text import detect_language
from kb.store import SOURCES_DIR
from kb.verbatim import check_unit
from retrieval.coverage import outside_coverage
from retrieval.outcome import Outcome
from retrieval.search import per_question_k, search_dialogue, shared_vector


def units(hits):
    return [hit.passage.unit_id for hit in hits]


def test_lay_words_find_the_law_s_words(engine):
    assert ("SOR-2019-150", "s20") in units(engine.search("I got bumped from an oversold flight, what do I get?"))
    assert ("SOR-2019-150", "s24") in units(engine.search("can they make me check my violin?"))
    assert units(engine.search("my suitcase came off the carousel with a cracked shell"))[0] in {
        ("SOR-2019-150", "s23"),
        ("C-26", "sch6-art17"),
        ("C-26", "sch6-art31"),
    }


def test_one_passage_per_unit_and_the_whole_unit_is_shown(engine):
    hits = engine.search("how much compensation for a 7 hour delay caused by crew shortage", k=5)
    assert len(units(hits)) == len(set(units(hits))) <= 5
    s19 = next(hit.passage for hit in hits if hit.passage.unit == "s19")
    assert "(1) If paragraph 12(2)(d)" in s19.text and "(4) The carrier must, within 30 days" in s19.text
    assert check_unit(s19, s19.text, SOURCES_DIR) is None


def test_nothing_weak_is_shown(engine):
    assert engine.search("a recipe for banana bread with walnuts") == []
    question = "my flight was delayed 5 hours"
    hits = engine.search(question)
    candidates = dict(engine.candidates(engine.evidence(question, "en"), question))
    assert hits and set(units(hits)) <= set(candidates)
    cut, kept_share = engine.weights.relative_cut, engine.weights.kept_share
    assert all(seen["relative"] >= cut or seen["share"] >= kept_share for seen in candidates.values())


def test_after_the_first_passage_none_the_ranker_finds_unlikely(engine):
    question = "The airline lost my wheelchair"
    evidence = engine.evidence(question, "en")
    shown = engine.rank(evidence, question)
    every = engine.rank(evidence, question, weights=replace(engine.weights, min_likelihood=0.0))
    assert len(shown) < len(every) and shown == every[: len(shown)]
    assert all(hit.score >= engine.weights.min_likelihood for hit in shown[1:])
    assert engine.rank(evidence, question, weights=replace(engine.weights, min_likelihood=1.0)) == every[:1]


def test_french_questions_get_french_passages_where_there_are_some(engine):
    question = "Mon vol a été annulé et je suis arrivée avec 13 heures de retard. À quelle indemnité ai-je droit?"
    assert detect_language(question) == "fr"
    hits = engine.search(question, lang="fr")
    appr = [hit.passage for hit in hits if hit.passage.doc == "SOR-2019-150"]
    assert appr and all(p.lang == "fr" for p in appr)
    assert all(p.url.startswith("https://laws-lois.justice.gc.ca/fra/") for p in appr)
    assert ("SOR-2019-150", "s19") in units(hits)


@pytest.mark.parametrize(
    ("question", "doc"),
    [
        ("Comment déposer une plainte auprès de l'Office des transports du Canada (OTC)?", "C-10.4"),
        # found through the multilingual encoder: the accessibility regulations have English bank entries only
        (
            "Mon fauteuil roulant électrique a été brisé pendant le vol. Que doit faire la compagnie aérienne?",
            "SOR-2019-244",
        ),
    ],
)
def test_units_without_a_french_version_are_shown_in_english(engine, question, doc):
    found = [hit.passage for hit in engine.search(question, lang="fr") if hit.passage.doc == doc]
    assert found and all(p.lang == "en" for p in found)


@pytest.mark.parametrize(
    "dialogue",
    [
        "My VIA Rail train from Toronto to Ottawa was 4 hours late. Do I get compensation?",
        "The hotel I booked on Expedia cancelled my room. Who refunds me?",
        "My travel insurance denied my trip cancellation claim and the card's insurer says the other insurer pays "
        "first. Which one pays for the flights I cancelled?",
        "Ryanair was 5 hours late from Rome to Paris, can I claim under EU261?",
        "What is the weather like in Toronto today?",
        "We flew WestJet to Miami for the cruise, no issues there. Then the cruise line skipped two ports and will "
        "not refund the excursions we paid for. Can I get that money back?",
        "Flew Porter to Orlando with the kids, that part was fine. Then our separate Spirit flight from Orlando to "
        "Vegas got cancelled the night before. Do the Canadian rules apply?",
        "Landed in Toronto on time, the flight was actually early. Then the Uber driver left with my laptop bag in "
        "his trunk. Does Uber have to pay me back?",
        "The WestJet flight home was totally fine. But the airport parking lot charged me the drive-up rate and "
        "someone dented my car there. Who pays?",
        "Both of my flights ran on schedule. Coming back, the airport's exit gate would not scan my prepaid parking "
        "and the airport charged me the daily rate. Does the airport have to refund me?",
        "Flights were honestly perfect, on time with Air Canada. The cruise skipped a port, the cruise line moved us. "
        "Can I complain to the Canadian Transportation Agency?",
        "I'm from Kelowna. A Thai airline cancelled my flight from Bangkok to Chiang Mai. Where do I complain?",
    ],
)
def test_what_the_knowledge_base_does_not_cover_is_named(engine, dialogue):
    assert outside_coverage(dialogue)
    result = search_dialogue([dialogue], engine)
    assert result.outside_coverage and not result.shown_passages


def test_a_dialogue_outside_coverage_costs_no_language_model_call(engine):
    requests: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda request: requests.append(request) or httpx.Response(500))
    endpoint = LLMSettings("key", "http://llm.test/v1", "model", timeout=5.0, max_retries=0)
    with httpx.Client(transport=transport) as client:
        result = search_dialogue(["My VIA Rail train was late"], engine, llm_config=endpoint, http_client=client)
        covered = search_dialogue(["My flight was cancelled"], engine, llm_config=endpoint, http_client=client)
    assert result.outside_coverage and result.understanding.path == "offline" and not result.understanding.note
    assert covered.understanding.note and len(requests) == 1  # the covered one asked, and fell back


def test_a_bag_or_a_seat_on_a_train_is_no_flight():
    train = (
        "VIA Rail had us sit outside Kingston for 3 hours, the train got in late, and my checked bag did not come "
        "off at Central Station: it came back two days later with the zipper ripped. Is there a rule like the "
        "airline one for the bag?"
    )
    assert outside_coverage(train) is Outcome.OTHER_SERVICE
    ferry = (
        "Marine Atlantic a retardé notre traversée de 14 heures. Personne chez nous n'a de handicap. Comme en "
        "avion, on a droit à une indemnité?"
    )
    assert outside_coverage(ferry) is Outcome.OTHER_SERVICE
    flight = "Air Canada cancelled my flight so I took the train to Montreal, and they lost my bag. What can I get?"
    assert outside_coverage(flight) is None


def test_a_loyalty_programme_is_another_service_unless_a_flight_was_disrupted():
    expired = "My Aeroplan points expired though I flew Air Canada in the spring; $200 to reinstate them. Legal?"
    assert outside_coverage(expired) is Outcome.OTHER_SERVICE
    assert outside_coverage("Mes points Aeroplan ont expiré, ont-ils le droit?") is Outcome.OTHER_SERVICE
    offered = "Air Canada cancelled my flight and offered 10,000 Aeroplan points instead of compensation. Allowed?"
    assert outside_coverage(offered) is None
    rules = "My Aeroplan points vanished after 18 months unused. Isn't Air Canada bound by the air passenger rules?"
    assert outside_coverage(rules) is Outcome.OTHER_SERVICE  # a passenger's rules named, no flight disrupted
    denied = "My Aeroplan points expired. There was no flight cancelled or anything, just the points. CTA?"
    assert outside_coverage(denied) is Outcome.OTHER_SERVICE  # a disruption denied is none


def test_a_travel_agency_s_own_fees_are_another_service_but_not_a_flight_it_sold():
    fees = (
        "We bought our Halifax to Rome tickets from an online travel agency and called the trip off ourselves when my "
        "knee surgery got moved. The airline side was fine, we got a credit as the fare allowed. The agency kept a "
        "$120 handling fee on each ticket. Can a travel agency do that?"
    )
    assert outside_coverage(fees) is Outcome.OTHER_SERVICE
    sold = (
        "Our travel agency booked us on Air Canada to Paris and the flight was cancelled the night before; the agency "
        "says to deal with the airline. What are we owed?"
    )
    assert outside_coverage(sold) is None


def test_naming_the_agency_beside_an_insurer_tells_no_flight():
    insurer = (
        "Mon assurance voyage refuse de rembourser l'annulation de mon voyage. Puis-je porter plainte à l'Office des "
        "transports?"
    )
    assert outside_coverage(insurer) is Outcome.OTHER_SERVICE
    english = "Can I complain to the CTA about my travel insurer refusing my claim?"
    assert outside_coverage(english) is Outcome.OTHER_SERVICE
    assert outside_coverage("How do I file a complaint with the CTA?") is None
    assert outside_coverage("Air Canada lost my bag and my insurer says to complain to the CTA first. Can I?") is None


def test_a_taxi_and_the_airport_parking_after_a_smooth_flight_are_other_services():
    after = (
        "Flew WestJet Calgary to Ottawa last week, on time, honestly a smooth flight. Then I left my phone in the "
        "taxi home, and the airport parking charged me for ten days instead of four. Who do I complain to?"
    )
    assert outside_coverage(after) is Outcome.OTHER_SERVICE
    late = "Flew WestJet Calgary to Ottawa, four hours late, and the airport parking charged me for the extra day."
    assert outside_coverage(late) is None


def test_a_duty_free_shop_is_another_service():
    assert outside_coverage("The duty free shop at the airport won't refund a bottle. What rules apply?") is (
        Outcome.OTHER_SERVICE
    )
    assert outside_coverage("Air Canada cancelled my flight and security took my duty-free. What am I owed?") is None


@pytest.mark.parametrize(
    "dialogue",
    [
        "We flew Transat to Punta Cana, no issues there, but the resort gave away our room and moved us. Refund?",
        "The flights were both on time. The shuttle from the airport never came and we paid $200 for a car. Can I "
        "claim that under the APPR?",
        "Le vol avec Sunwing était correct, aucun retard. Mais la croisière a sauté deux escales. On a droit à quoi?",
        "My insurer refused my claim for the clinic bill after I slipped at the hotel. My cousin says there's a "
        "Canadian law for travellers. Does it cover this?",
        "Booked a WestJet package to Jamaica. Both flights were on time, no problem. But the hotel was overbooked and "
        "they sent us to another one for four nights. Can I complain to the CTA?",
        "Our tour operator sold us Air Transat flights and a week at a resort in Holguín. The flights were right on "
        "time, but the resort told us it was overbooked and moved us to a hotel for four nights. Can the Agency help?",
        'Flights both ways were on time. At the hotel our garden-view room was "overbooked" and they moved us, and '
        "the transfer bus to the airport came two hours late. Can I complain to the Canadian Transportation Agency?",
        "We're from Regina and did a Europe trip. Air Canada to London was great. Then the Eurostar to Paris was four "
        "hours late because of a strike. Do the Canadian passenger rules give us anything?",
        "WestJet to Puerto Plata and back, both fine. The catamaran excursion we booked with a local tour company was "
        "cancelled for a boat problem and they never refunded. Is there a Canadian agency for that?",
        "Our flight home was on time. The park & fly lot near Pearson dented our car and won't pay. CTA help?",
        "Landed at YYZ from Lima (flight fine, bags all came). Took an Uber home and left my camera bag in the back "
        "seat. Is there a Canadian passenger rule for that?",
        "Flew Porter to Halifax, smooth flight, everything good. The ferry to PEI was cancelled the next day for an "
        "engine problem. Is there a passenger regulation for ferries like for planes?",
        "Our flights to Orlando were rebooked by the airline without any trouble. But a storm closed the theme parks "
        "for two days and Disney World won't refund the park tickets. Do Canadian rules help?",
        "I ate at a restaurant past security at YUL before my flight to Calgary, which was fine. Food poisoning for "
        "two days. Is the airline or the airport responsible under the passenger rules?",
        "Le passeport est arrivé trop tard, Service Canada a jamais rappelé, j'ai manqué mon voyage. La compagnie "
        "aérienne m'a remboursé les taxes, correct. Mais l'Airbnb pis mes billets de spectacle? Y a-tu une loi?",
        "J'ai loué une auto à Punta Cana, le vol de Québec était à l'heure. Au comptoir ils m'ont forcé à prendre leur "
        "assurance à 40 $ par jour. Les règles canadiennes pour les voyageurs aériens couvrent ça?",
        "Les vols étaient prévus normalement, rien n'a été changé par la compagnie. On a annulé parce que mon chum "
        "est tombé malade et l'assurance voyage refuse de payer. L'Office des transports peut-tu les obliger?",
        "Flew Porter to Newark, no problem. I use a wheelchair and at Penn Station nobody came to help me onto the "
        "Amtrak train to Washington. Can I get compensation, and who do I complain to?",
        "Our Air Canada flight to Lima and the LATAM one to Cusco went as planned. PeruRail cancelled our train to "
        "Aguas Calientes and offered a voucher. Can the CTA make them refund us?",
        "Air Canada got us to Madrid, no issues. Our Renfe to Seville was 4 hours late and we lost a hotel night. "
        "Do the Canadian rules cover it?",
        "Flew WestJet to Halifax, fine. The Marine Atlantic sailing to Argentia was cancelled and the next crossing "
        "was a day late for vessel maintenance. Does the APPR cover that?",
        "Back from an all inclusive in Cayo Coco, package with Air Transat. Flights both ways fine. The buffet gave "
        "us food poisoning and the pool was closed. Can the CTA get us money back for the resort?",
        "The flight part I already sorted out with the airline, not asking about that. My insurer denied my trip "
        "cancellation claim after I ended up in emerg. Does the Canadian Transportation Agency handle insurers?",
        "Salut, le train VIA Montréal–Ottawa a eu 4 heures de retard. L'an passé Air Canada m'avait donné 400 $ pour "
        "un retard. Y a-tu la même affaire pour le train? L'Office des transports peut-tu forcer VIA?",
        "My parents paid a third-party site 80 pounds each for their Canadian eTA, a processing service. They fly to "
        "Toronto next week. Do the air travel rules cover this?",
        "Flew WestJet to Cancún, flights fine. Our room was broken into and the safe emptied; the hotel says it is not "
        "responsible and the police report is in Spanish. Does Canadian law cover theft at a foreign hotel?",
        "Vol Porter correct, aucun problème. À la sécurité, mon bracelet est disparu du bac gris pis les objets perdus "
        "ont rien. Les règles canadiennes sur les bagages perdus s'appliquent-tu?",
        "Mon père est en fauteuil roulant. Les vols Air Canada vers Miami allaient super bien, mais sur le bateau de "
        "la croisière Carnival, un employé a brisé son fauteuil. Est-ce que les règles canadiennes s'appliquent?",
    ],
)
def test_the_trouble_with_another_service_after_a_flight_that_went_well_is_not_covered(dialogue):
    """Flights told as going well, or named only where the passenger asks whether a law reaches the trouble, are no
    evidence that the trouble was a flight."""
    assert outside_coverage(dialogue) is Outcome.OTHER_SERVICE


@pytest.mark.parametrize(
    "dialogue",
    [
        "Booked a separate easyJet ticket from Paris to Nice and it was cancelled. I remember when Air Canada bumped "
        "my dad and he got money. Can I claim?",
        "Our Frontier flight from Denver to Austin was cancelled and we drove instead. I booked it with my Calgary "
        "address. Since we flew WestJet down in the first place, do the Canadian rules cover this?",
        "Jetstar cancelled my flight to Cairns and I slept in the terminal. Owed anything?",
        "A Winnipeg teacher says Wizz Air cancelled her flight from Budapest to Rome with a day's notice.",
        "We live in Peterborough, Ontario. Air Canada to Atlanta went perfectly. A week later our separately booked "
        "Delta flight from Atlanta to Orlando was cancelled and we drove. What are we owed?",
        "Visiting my sister in Wagga Wagga, the Rex flight from Sydney got cancelled and we drove five hours. Owed?",
        "From Regina. Air Canada got us to Lisbon. Then we bought a TAP flight from Lisbon to Porto on its own, and "
        "it was cancelled. Does the Canadian agency help?",
        "I'm a Halifax resident. In Spain I booked an Iberia flight from Madrid to Seville and paid from Canada with "
        "my Canadian Visa. It was cancelled for crew. Can the Canadian agency order them to pay?",
        "We spend winters in Mazatlán and flew down on Air Canada. We took a separate side trip on Aeroméxico from "
        "Mexico City to Mérida, delayed 8 hours. I've read it's $700 for 6-9 hours in Canada. Can we claim?",
        "On est de Sherbrooke. Notre vol intérieur en Italie avec ITA, Rome-Palerme, payé avec notre carte "
        "canadienne, a été annulé. La loi canadienne nous protège-tu?",
        "WestJet got us to Cancún fine. Then Viva Aerobus cancelled our Cancún to Mexico City flight that we bought "
        "on their app. We're from Red Deer. What does Canadian law give us?",
        "Air Canada got us to Lima fine. Then we took a LATAM flight from Lima to Cusco (domestic, booked there) and "
        "my backpack came two days late. Does the Canadian baggage law apply?",
        "Notre vol Avianca Bogotá-Cartagena, séparé de notre billet Air Canada, a eu 5 heures de retard. On a droit à "
        "l'indemnité canadienne?",
        "I'm from Halifax, backpacking in Europe: Vueling cancelled my Rome to Madrid flight. I bought it while at "
        "home in Nova Scotia, and since I bought it in Canada, can I get the Canadian compensation from Vueling?",
        "Visiting my aunt in Utah. Booked Southwest Denver to Salt Lake City on its own (I flew WestJet YYC-DEN the "
        "day before, no issues) and it was cancelled. Does the APPR protect me?",
        "We flew Air Canada Vancouver to Auckland, great flight. Then Air New Zealand Auckland to Queenstown, separate "
        "booking, was cancelled for engineering. We're Canadian. How much can we claim under the APPR?",
        "Our Delta flight Toronto–Atlanta was perfect; this was a separate booking. Delta bumped us from ATL to New "
        "Orleans, oversold. Can I ask for the Canadian $900?",
        "Air Canada Toronto–London was excellent. But British Airways London Heathrow to Edinburgh, booked separately, "
        "broke my mom's wheelchair and left her waiting. Can we use the Canadian accessibility regulations?",
        "We're from Mississauga, flew Turkish Airlines Toronto to Istanbul, fine. Then Pegasus Istanbul to Antalya, "
        "bought separately, was delayed 5 hours. Can we use the Canadian rules?",
        "Vol Air Canada Montréal–Lima, parfait. Le 7, on avait réservé séparément un vol Lima–Cusco. Ma valise est "
        "arrivée 3 jours plus tard. Je suis de Sherbrooke. Les règles canadiennes sur les bagages s'appliquent-tu?",
        "Flew Air India Vancouver to Delhi, no issues. Then IndiGo Delhi to Goa, booked separately, was 10 hours late. "
        "A friend who had a delay on Air Canada got $1,000. Can the CTA take this?",
        "Aeroméxico cancelled our flight from Huatulco to Mazatlán and we lost a night at the hotel. Are we owed?",
        "Notre vol de Ljubljana à Tallinn a été annulé pis on a perdu une nuit d'hôtel. On a droit à quoi?",
        "I'm from Guelph. Aegean cancelled our hop to the islands and we waited two days. Do Canada's rules apply?",
        "Flew Air Canada to Delhi (long but no issues). Then I was bumped from a domestic flight in India, Delhi to "
        "Goa, oversold. In Canada I think being bumped gets you $900. Is that owed here?",
        "Flew Air Canada Vancouver to Sydney (flawless), then 3 days later a separate Jetstar booking to Cairns lost "
        "my bag. What can I claim from Jetstar?",
        "I was bumped from a domestic flight in Vietnam, Hanoi to Da Nang, oversold. Back in Brampton, I asked the "
        "airline for $2,400 for denied boarding and heard nothing. Can the Canadian agency order them to pay?",
        "A domestic flight in Peru was nine hours late for crew scheduling. When I got home to Regina I asked the "
        "airline for $1,000. Am I entitled to it?",
        "I'm from Winnipeg but live in Seoul now. My Korean Air flight from Seoul to Jeju lost my bag for two days. I "
        "thought Canada had passenger rules on delayed bags. Do they reach this domestic Korean flight?",
        "Je suis de Sherbrooke. IndiGo a annulé mon vol Delhi–Goa la veille. Est-ce que je peux porter plainte à "
        "l'Office des transports du Canada contre IndiGo?",
        "Qantas kept us on the tarmac four hours, Sydney to Melbourne. I'm from Halifax and I know Canada has a rule "
        "about that, and my cousin got compensation from Air Canada once. Does it apply to me?",
        "ANA bumped me from its Haneda to Sapporo flight, oversold. My dad says we're protected by Canada's "
        "denied-boarding rules wherever we fly. Am I owed $900?",
    ],
)
def test_a_flight_abroad_is_linked_to_canada_by_neither_home_nor_hearsay_nor_a_question_to_the_rules(dialogue):
    """What the passenger remembers or asks of the rules, where they live, and a carrier that flies nowhere in Canada
    do not bring a flight between places abroad under Canadian law."""
    assert outside_coverage(dialogue) is Outcome.NO_CANADIAN_LINK


def test_a_canadian_flight_booked_apart_leaves_the_flight_to_canada_linked():
    """The connection booked apart is the Canadian one; the delayed flight still lands in Canada."""
    dialogue = (
        "Qatar Airways, Doha to Montreal. A part had to be replaced and we left 6 hours late. I missed my Porter "
        "flight to Halifax, bought separately, and paid for a new one. In Europe it would be 600 euros. Can I get "
        "it back?"
    )
    assert outside_coverage(dialogue) is None


@pytest.mark.parametrize(
    "dialogue",
    [
        "VIA Rail train 55 from Montréal to Toronto was five hours late. I don't have any disability or special "
        "needs; I missed a concert. With an airline I'd get $400. Can the Agency order VIA to pay me?",
        "Marine Atlantic a retardé notre traversée de 14 heures. Personne chez nous n'a de handicap. Comme en avion, "
        "on a droit à une indemnité?",
    ],
)
def test_a_train_or_a_ferry_stays_another_service_when_the_passenger_says_they_have_no_disability(dialogue):
    assert outside_coverage(dialogue) is Outcome.OTHER_SERVICE


def test_a_lounge_and_a_rental_suv_are_other_services():
    lounge = "On time flight to Kelowna, but the airport lounge refused my card's free access. Who regulates that?"
    assert outside_coverage(lounge) is Outcome.OTHER_SERVICE
    rental = "We rented a compact SUV at the Calgary airport and the rental counter charged us $1,400 for a chip."
    assert outside_coverage(rental) is Outcome.OTHER_SERVICE


def test_a_flight_told_as_going_well_in_everyday_french_is_no_evidence_of_a_flight():
    parking = (
        "On est partis à Cuba avec Transat, ça a ben été, arrivés 20 min d'avance. Au retour, Park'N Fly m'a "
        "chargé le double pis mon char avait une bosse. Je fais quoi?"
    )
    assert outside_coverage(parking) is Outcome.OTHER_SERVICE


def test_porter_plainte_is_no_canadian_carrier():
    foreign = "Je veux porter plainte contre Vueling : mon vol de Barcelone à Rome a été annulé."
    assert outside_coverage(foreign) is Outcome.NO_CANADIAN_LINK
    assert outside_coverage("Mon vol Porter de Barcelone à Rome a été annulé.") is None  # the carrier still is


def test_disability_questions_about_trains_are_covered():
    assert outside_coverage("I use a wheelchair and the train staff refused to help me board") is None
    blind = "VIA Rail left us near Belleville for four hours. My son is blind and nobody helped him off the train."
    assert outside_coverage(blind) is None
    not_disabled = "Our VIA Rail train sat near Belleville four hours. I'm not disabled, just fed up. Can the CTA help?"
    assert outside_coverage(not_disabled) is Outcome.OTHER_SERVICE
    assert outside_coverage("Does the airport have to tell me about accessible taxis at the terminal?") is None
    assert outside_coverage("They broke my wheelchair, what now?") is None


@pytest.mark.parametrize(
    "question",
    [
        "My aide flies with me to help me eat: does she have to buy a ticket?",
        "The check-in agent charged a fee that appears nowhere in what they publish. Can they invent charges?",
        "How does the allergy buffer zone work on planes?",
        "La compagnie doit-elle avoir une politique écrite sur les mineurs non accompagnés?",
    ],
)
def test_questions_in_the_law_s_words_are_about_air_travel(question):
    assert outside_coverage(question) is None


@pytest.mark.parametrize(
    "garbage", ["", "   ", "?!?!...", "x" * 50_000, "🙂🙃✈️💼", "\x00\x07\x1b[31m", "<script>alert(1)</script>"]
)
def test_garbage_gives_a_clear_empty_result(engine, garbage):
    result = search_dialogue([garbage], engine)
    assert not result.shown_passages
    assert engine.search(garbage) == []


def test_compound_questions_each_get_their_passages(engine):
    result = search_dialogue(
        ["Our Sunwing flight was cancelled (crew shortage) and we got home 26 hours late. Also my suitcase was "
         "cracked at the carousel. How much compensation for the cancellation? "
         "Is there a time limit for the suitcase?"],
        engine,
    )  # fmt: skip
    assert len(result.results) >= 2
    assert all(r.hits for r in result.results)
    shown = {p.unit_id for p in result.shown_passages}
    assert ("SOR-2019-150", "s19") in shown and ("C-26", "sch6-art31") in shown


def test_several_questions_share_about_k_passages():
    assert per_question_k(5, 1) == 5
    assert per_question_k(5, 2) == 3
    assert per_question_k(5, 3) == 2


def test_a_unit_is_shown_once_and_later_questions_point_to_it(engine):
    result = search_dialogue(
        ["My Air Canada flight was delayed 5 hours by a crew shortage and my suitcase came back cracked. "
         "How much compensation for the delay? What about the suitcase? And what compensation for the delay again?"],
        engine,
    )  # fmt: skip
    shown = [p.unit_id for p in result.shown_passages]
    assert len(shown) == len(set(shown))
    for question in result.results:
        assert {(h.passage.doc, h.passage.unit) for h in question.shown_above} <= set(shown)


class CountingCollection:
    """A Chroma collection that counts its queries and answers them itself."""

    def __init__(self, collection):
        self.collection = collection
        self.queries = 0

    def query(self, **request):
        self.queries += 1
        return self.collection.query(**request)


def test_a_message_s_questions_share_one_dense_search(engine):
    story = (
        "Flair flight from Edmonton to Toronto cancelled the night before, they said a crew problem, and when we "
        "finally landed two days later my daughter's car seat came off the belt with a cracked base. "
        "What do we get for the cancellation? And who pays for the car seat?"
    )
    counting = CountingCollection(engine.passage_dense.collection)
    engine.passage_dense.collection, real = counting, engine.passage_dense.collection
    try:
        result = search_dialogue([story], engine, llm_config=None)
    finally:
        engine.passage_dense.collection = real
    assert len(result.results) == 2 and all(question.hits for question in result.results)
    assert counting.queries == 1  # one vector, the story's, searched once for both questions


def test_french_questions_get_multilingual_evidence_and_english_ones_do_not(engine):
    question = "Mon fauteuil roulant électrique a été brisé pendant le vol. Que doit faire la compagnie aérienne?"
    evidence = engine.evidence(question, "fr")
    assert evidence.bank_multilingual and not engine.evidence("my wheelchair was broken", "en").bank_multilingual


@pytest.mark.parametrize(
    "dialogue",
    [
        "Can I claim under both EU261 and the Canadian rules for my delayed flight?",
        "Lufthansa from Frankfurt to Vancouver landed 7 hours late. Do I claim under EC 261 or the APPR?",
        "Our flight was delayed overnight, the airline would not pay for the hotel or the taxi to the hotel.",
        "I had to get a hotel myself when my WestJet flight was cancelled. Will they pay me back?",
        "Mon vol a été retardé de 8 heures et l'hôtel n'a pas été payé.",
    ],
)
def test_a_canadian_air_question_naming_a_foreign_regime_or_a_hotel_is_covered(dialogue):
    assert outside_coverage(dialogue) is None


def test_a_route_needs_airport_codes():
    assert outside_coverage("I had to get a new phone charger, the old one broke.") == "not about air travel"
    assert outside_coverage("WestJet YYC to YVR landed 4 hours late") is None


def test_a_question_points_up_only_to_its_own_first_results(engine):
    message = (
        "Air Transat cancelled our Montreal to Paris flight for a mechanical problem and we arrived 30 hours late. "
        "Then my suitcase came out with a broken wheel. How much compensation for the cancellation? "
        "And what do I do about the suitcase?"
    )
    result = search_dialogue([message], engine, llm_config=None)
    limit = per_question_k(5, len(result.results))
    assert len(result.results) >= 2
    for index, question in enumerate(result.results):
        searched = result.understanding.searched(index)
        own_first = units(engine.search(searched, "en", k=limit, ask=question.question, dialogue=(message,)))
        assert set(units(question.shown_above)) <= set(own_first), question.question
    assert ("SOR-2019-150", "s19") not in units(result.results[-1].shown_above)


def test_a_question_about_flying_that_no_law_answers_shows_nothing(engine):
    question = "Which terminal does Air Canada use at Pearson?"
    evidence = engine.evidence(question, "en")
    assert evidence.outside_lead > 0
    assert engine.search(question) == []
    assert engine.search("Do I get meals if my flight is delayed 4 hours?")  # a question the law answers


def test_a_story_telling_a_situation_is_searched_though_it_reads_like_a_question_no_law_answers(engine):
    """The gate against questions about flying that no law answers (a terminal, a lounge) stops short questions; a
    story that tells a situation the law distinguishes (a ski bag broken in the hold) is searched whatever it
    resembles. The gate is forced here for every text, by a margin no question passes."""
    strict = copy.copy(engine)
    strict.weights = replace(engine.weights, outside_margin=-2.0)
    story = (
        "Ski week in Whistler with my brother, flew WestJet Toronto to Vancouver on January 14. I paid $35 to check "
        "my ski bag (skis, poles and boots). At the Vancouver carousel the bag was ripped and one ski was cracked "
        "right through, I reported it at the WestJet desk. The skis cost $850 last winter and I have the receipt. "
        "WestJet offers a $100 travel credit and says sports equipment travels at the owner's risk under its tariff. "
        "Can they hide behind the tariff like that?"
    )
    assert strict.search("Which terminal does Air Canada use at Pearson?") == []
    assert strict.search("Do I get meals if my flight is delayed 4 hours?") == []  # short: the gate still decides
    assert ("C-26", "sch6-art17") in units(strict.search(story, "en", ask="Can they hide behind the tariff like that?"))


def test_a_trip_report_still_shows_the_law_for_its_ask_about_a_bag_damaged_in_the_hold(engine):
    story = (
        "Trip report and a couple of questions. Two weeks in Japan with our little one: Tokyo, Nikko and Kyoto. "
        "We flew WestJet from Calgary to Tokyo Narita and booked the cheapest fares in February. Tips: get the Suica "
        "card on your phone, the department store food halls are amazing, the bullet train has a luggage reservation "
        "rule now, the window seats on the left side see Mount Fuji, and Nikko is cooler than Tokyo in August. Kyoto "
        "temples are busiest after 9, go early. Our checked car seat came off the carousel at Narita with a snapped "
        "buckle, I only noticed at the hotel and sent WestJet the claim form ten days later. Is ten days too late for "
        "that? And is the Ghibli museum worth it with a toddler?"
    )
    result = search_dialogue([story], engine, llm_config=None)
    vector = shared_vector(result.understanding, [story], engine, "en")
    assert engine.outside_lead(vector, engine.bank_dense.scores(vector)) > 0  # the story as a whole reads as outside
    assert ("C-26", "sch6-art31") in units(result.results[0].hits)  # the notice of damage, and its deadline


def test_a_trip_report_with_one_question_about_it_is_asked_about_the_stroller_and_shown_the_law(engine):
    """One ask ("has to pay for it?") points back to the sentence before it: the question names the stroller, not
    the children, and a story that reads as a trip report as a whole is judged by that question."""
    story = (
        "Finally home from three weeks in Japan with the kids (6 and 3) and my parents. We flew Air Canada Vancouver "
        "to Tokyo Haneda on April 9. First week in Tokyo: the digital art museum was a hit, the 6-year-old cried "
        "leaving the Pokemon store, and my dad discovered convenience store sandwiches and eats nothing else now. "
        "Then the bullet train to Kyoto, the shrine gates at 7am before the crowds (do it!), and a tiny inn where my "
        "mom learned to wear a kimono. Osaka was all street food, dumplings and pancakes in a six-seat place by the "
        "canal. The deer in Nara chased my son for his crackers. Only bad part: the stroller we gate-checked in "
        "Vancouver came back at Haneda with the front wheel snapped off, and we bought a new one in Tokyo for about "
        "$300. Does anyone know if Air Canada has to pay for it, even though it was taken at the plane door? Happy to "
        "share our itinerary!"
    )
    vector = engine.query_vector(story, "en")
    assert engine.outside_lead(vector, engine.bank_dense.scores(vector)) > 0  # the story as a whole reads as outside
    result = search_dialogue([story], engine, llm_config=None)
    (question,) = result.understanding.questions
    assert "stroller" in question
    assert ("C-26", "sch6-art17") in units(result.results[0].hits)


def test_a_trip_reports_question_is_asked_with_the_sentence_it_points_to(engine):
    """ "Is that allowed?" after a seat fee: the question tells the fee, not the sights ("get lost on purpose" is no
    lost bag), and shows the rule on seating children."""
    story = (
        "Back from two weeks in Italy with my husband and our twins (8). Rome: the Colosseum underground tour is "
        "worth every penny, gelato near the Pantheon, and the Vatican at opening time. Florence was all art and "
        "steak. Venice: get lost on purpose, skip the gondola, take the vaporetto at sunset. Air Canada made us pay "
        "$50 per seat to sit next to our 8-year-olds on the flight to Rome. Is that allowed? Next year: Sicily!"
    )
    result = search_dialogue([story], engine, llm_config=None)
    (question,) = result.understanding.questions
    assert "per seat" in question and "lost" not in question
    assert ("SOR-2019-150", "s22") in units(result.results[0].hits)


def test_a_french_question_is_read_by_the_english_model_only_to_its_first_128_tokens(engine):
    """Past the French cut, more words change nothing the English model sees; an English question reads on."""
    story = "Notre vol Montréal-Calgary a été annulé la veille du départ, pis personne nous a appelés. " * 6
    more = " Ma valise est arrivée brisée et la compagnie refuse de payer."
    french, longer = engine.evidence(story, "fr"), engine.evidence(story + more, "fr")
    assert french.passage_dense == longer.passage_dense

    english = "Our flight from Montreal to Calgary was cancelled the day before and nobody called us. "
    assert engine.evidence(english, "en").passage_dense != engine.evidence(english + more, "en").passage_dense


@pytest.mark.parametrize(
    "dialogue",
    [
        "The flight from Toronto left on time but my bag never arrived. What can I claim?",
        "Our Air Canada flight to Paris was on time. Coming back, it was cancelled and we waited two days. Owed?",
        "Le vol de Montréal est arrivé à l'heure. Mais ma valise est arrivée brisée, je peux réclamer?",
        "Our Porter flight to Ottawa was cancelled and we paid for a taxi to the hotel. Can I get that back?",
        "We waited all night and paid for a hotel and a taxi. Does the APPR make WestJet pay?",
        "How much liability insurance must a Canadian airline have per passenger seat?",
        "The signs at the security checkpoint were hard to read. Are there rules for CATSA signage?",
        "I live in Toronto and flew to Delhi on a foreign airline. My bag was lost. Can I sue them here in Canada?",
        "Our WestJet flight from Calgary to Denver was cancelled. Do the rules cover it?",
        "Ryanair lost my bag on the way home to Toronto. What can I claim?",
        "Air Canada cancelled our YYZ to Halifax flight for the weather. My cousin got money from Ryanair last year "
        "for less, so what are we owed?",
        "Le train de Rennes à Paris était en retard. Puis le vol Air France Paris–Montréal a eu 6 heures de retard et "
        "j'ai payé un taxi, les navettes ne roulaient plus. Le règlement canadien s'applique-t-il?",
    ],
)
def test_a_flight_that_went_well_beside_a_trouble_is_still_covered(dialogue):
    assert outside_coverage(dialogue) is None


class CountingEncoder:
    """The engine's own encoder, counting the questions it encodes."""

    def __init__(self, encoder):
        self.encoder, self.model_id, self.encoded = encoder, encoder.model_id, []

    def queries(self, texts, max_tokens=256):
        self.encoded.extend(texts)
        return self.encoder.queries(texts, max_tokens)


def test_a_message_with_several_questions_is_encoded_once(engine, monkeypatch):
    counting = CountingEncoder(engine.encoder)
    monkeypatch.setattr(engine, "encoder", counting)
    story = "Porter cancelled our flight to Halifax for crew scheduling, and my golf bag came back with a cracked case."
    asks = " Can we get money for the cancellation? What about the golf bag?"
    found = search_dialogue([story + asks], engine)
    assert len(found.results) == 2 and all(result.hits for result in found.results)
    assert len(counting.encoded) == 1 and story in counting.encoded[0]
    counting.encoded.clear()
    search_dialogue(["How much do I get for a 5 hour delay caused by crew scheduling?"], engine)
    assert len(counting.encoded) == 1


@pytest.mark.parametrize(
    "dialogue",
    [
        "Our Sunwing package flight to Cancun was delayed 9 hours for crew, and we lost a night at the resort. Owed?",
        "The hotel was overbooked because our WestJet flight got cancelled and we got in a day late. Hotel night back?",
        "I booked the return flight on its own with Air Canada from Toronto to Paris and it was cancelled. Owed?",
        "Notre vol Sunwing Montréal-Cancún : ma valise est arrivée avec la roue arrachée. Chu en train de checker "
        "combien de temps j'ai pour réclamer.",  # "en train de" is no train
        "Air Canada cancelled my Toronto flight. I got no delay compensation, only a voucher. Is that legal?",
    ],
)
def test_a_flight_s_trouble_told_beside_a_package_a_hotel_or_a_train_of_words_stays_covered(dialogue):
    assert outside_coverage(dialogue) is None
