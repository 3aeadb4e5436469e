"""The words of air passengers' problems, each list once: what the rules that read a message look for.

Topics and their families tell one issue from another (the decomposer, the rewriter, the check of the model's
questions); carriers, places and causes are the facts a question carries; air-travel, service and regime words
tell whether a dialogue is about what the knowledge base covers; other languages' words tell a message the
product cannot read. Patterns matched against `foundation.text.fold`ed text are written in plain lower case.

Where two lists look alike but differ on purpose, both are kept and the note says why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# --- Topics: the issues a passenger raises, as cue patterns (English and French), matched case-insensitively ---

# topic -> (family, cue pattern). A family says which topics speak of the same thing, so that the decomposer can
# tell one issue from another and give each question the sentences that describe it.
TOPICS: dict[str, tuple[str, str]] = {
    "delay": (
        "event",
        r"\bdelay(?:s|ed)?\b|\blater?\b|\bsupposed to (?:go|leave|depart|land|arrive)\b|\bstuck\b|\bstranded\b"
        r"|\bovernight\b|\bwaited\b|\bpushed\b[^.?!]{0,50}\bback\b|\bhours? behind\b|\bretard\w*|\bcoincée?s?\b"
        r"|\b\d+(?:[.,]\d+)?\s*(?:hours?|hrs?)\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve) hours\b"
        r"|\bheures\b",
    ),
    "cancellation": ("event", r"\bcancel\w*|\bannul\w*"),
    "denied_boarding": (
        "event",
        r"\bbump(?:ed|ing)?\b|\bover-?sold\b|\bover-?book\w*|\b(?:denied|refused) boarding\b"
        r"|\b(?:didn'?t|wouldn'?t) let (?:me|us) board|\brefus d'embarquement|\bembarquement refusé|\bsurréserv\w*",
    ),
    "tarmac": (
        "event",
        r"\btarmac\b|\b(?:stuck|sat|kept|trapped|held|waited) (?:\w+ ){0,2}(?:on|in) the (?:plane|aircraft|runway)\b"
        r"|\bsur la piste\b|\bdans l'avion pendant\b",
    ),
    "schedule_change": (
        "event",
        r"\bschedule change|\breschedul\w*|\bchanged (?:our|my|the) flight|\bnow (?:leaves|departs|lands)\b"
        r"|\bchangement d'horaire|\bvol (?:a été )?(?:modifié|devancé|changé)",
    ),
    "compensation": (
        "compensation",
        r"\bcompensat\w*|\bowed?\b|\bexpenses?\b|\breceipts?\b|\bcosts? (?:covered|back|reimbursed)\b|\bentitled\b"
        r"|\bindemni\w*|\bdédommag\w*|\bpay (?:me|us)\b(?! back)|\b(?:give|get|owe) (?:me |us )?anything\b|\bpayout\b"
        r"|\bhow much (?:money|cash|are|is|do|will|would|should|can)\b|(?<!food )(?<!meal )\bvouchers?\b|\bcash\b",
    ),
    "meals_hotel": (
        "meals",
        r"\bmeals?\b|\bfood\b|\bbreakfast\b|\blunch\b|\bdinner\b|\bsupper\b|\bhotels?\b|\bsandwich\w*|\bwater\b|\bdrinks?\b|\bsnacks?\b|\bfed\b|\bfeed\b"
        r"|\bmotels?\b|\blodging\b|\baccommodation\w*|\brepas\b|\bnourriture\b|\bhôtel\w*|\bhébergement\b|\bboissons?\b|\bmanger\b",
    ),
    "rebooking": (
        "rebooking",
        r"\bre-?book\w*|\banother (?:flight|airline|carrier)\b|\bother airlines?\b|\bnext (?:available )?flight\b"
        r"|\balternate (?:flight|travel|arrangements?)\b|\bput (?:us|me) on\b|\bréachemin\w*"
        r"|\bautre (?:vol|transporteur|compagnie)\b|\bnouveau vol\b",
    ),
    "refund": (
        "refund",
        r"\brefund\w*|\bmoney back\b|\bpay (?:me|us) back\b|\breimburs\w*|\bfees? back\b"
        r"|\bget (?:that|those|it|them) back\b|\bcredit\b|\brembours\w*",
    ),
    "communication": (
        "communication",
        r"\bupdat\w*|\binform(?:ed|ation)?\b|\bannounce\w*|\b(?:nobody|no one|nobody ever) told\b|\btold us nothing\b"
        r"|\bkeep (?:you|us|me|passengers) (?:updated|posted|informed)\b|\bcommuniqu\w*|\binformé\w*|\baviser\b",
    ),
    "baggage": (
        "baggage",
        r"\bbag(?:s|gage)?\b|\bluggage\b|\bsuitcases?\b|\bstrollers?\b|\bcar seats?\b|\bbackpacks?\b|\bcarry-?ons?\b"
        r"|\bpersonal items?\b|\bvalises?\b|\bbagages?\b|\bpoussettes?\b",
    ),
    "bag_lost": (
        "baggage",
        r"\blost\b|\bnever (?:showed|arrived|came|turned)\b|\bmissing\b|\bbeing traced\b|\btracing\b"
        r"|\bperdue?s?\b|\bintrouvables?\b|\bégarée?s?\b",
    ),
    "bag_delayed": (
        "baggage",
        r"\bdelayed (?:my |our |the )?(?:bag|baggage|luggage|suitcase)s?\b"
        r"|\b(?:bag|baggage|luggage|suitcase|valise|bagage)s?\b[^.?!]{0,80}?"
        r"\b(?:late|days? later|delayed|(?:didn'?t|did not|hasn'?t|has not|not) (?:arrive|arrived|come|shown up)"
        r"|en retard|n'est pas arrivée?|(?:\d+|deux|trois|quatre|cinq) jours)\b",
    ),
    "damage": (
        "damage",
        r"\bdamag\w*|\bbroken?\b|\bsnapped\b|\bshattered\b|\bscratch\w*|\bbusted\b|\bcrack\w*|\btorn\b|\bripped\b"
        r"|\bbent\b|\bcrushed\b|\bsmashed\b|\bdented\b"
        r"|\bsoaked\b|\bdéchir\w*|\bendommag\w*|\bbrisée?s?\b|\bcassée?s?\b|\babîmée?s?\b",
    ),
    "instrument": (
        "instrument",
        r"\binstruments?\b|\bviol(?:in|a)s?\b|\bguitars?\b|\bcellos?\b|\btrumpets?\b|\bsax(?:ophone)?s?\b"
        r"|\bflutes?\b|\bclarinets?\b|\bukuleles?\b|\bdrums?\b|\bviolon\w*|\bguitares?\b",
    ),
    "children": (
        "children",
        r"\bkids?\b|\bchild(?:ren)?\b|\bsons?\b|\bdaughters?\b|\btoddlers?\b|\bbab(?:y|ies)\b|\binfants?\b"
        r"|\b\d{1,2}[- ]?(?:year|yr)s?[- ]old\b|\benfants?\b|\bfils\b|\bfilles?\b|\bbébés?\b",
    ),
    "seating": (
        "children",
        r"\bseat(?:s|ed|ing)?\b(?! ?belt)|\brows?\b|\bsit (?:together|next|beside|with)\b|\bnext to\b|\bbeside\b"
        r"|\bsièges?\b|\bassise?s?\b|\bà côté\b|\bensemble\b",
    ),
    "disability": (
        "disability",
        r"\bwheel ?chairs?\b|\bmobility (?:aid|device)s?\b|\bscooters?\b|\bservice (?:dog|animal)s?\b|\bguide dogs?\b"
        r"|\bdisabilit\w*|\bdisabled\b|\bblind\b|\bdeaf\b|\b(?:special|wheelchair|mobility) assistance\b"
        r"|\baccessib\w*|\boxygen\b|\bfauteuils? roulants?\b|\bhandicap\w*|\bchiens? (?:d'assistance|guides?)\b"
        r"|\bmobilité réduite\b",
    ),
    "deadline": (
        "deadline",
        r"\bdeadlines?\b|\btime limits?\b|\bhow long do (?:i|we|they) have\b|\bhow (?:much|long) time\b|\btoo late\b"
        r"|\blimitation period\b|\bhow many days\b|\bdélais?\b|\bjusqu'à quand\b|\bcombien de temps\b|\btrop tard\b",
    ),
    "complaint": (
        "complaint",
        r"\bCTA\b|\btransportation agency\b|\bthe agency\b|\bfile a complaint\b"
        r"|\b(?:any)?where\b[^.?!]{0,25}\bcomplain\w*|\bescalat\w*|\b(?:haven|hasn)'?t (?:answered|responded|replied)\b"
        r"|\bnever (?:replie[sd]|repl(?:y|ied)|answer(?:s|ed)?|respond(?:s|ed)?)\b"
        r"|\bno (?:answer|response|reply)\b|\bignor(?:ed|ing)\b"
        r"|\bOffice des transports\b|\bOTC\b|\bplainte\b|\brecours\b",
    ),
}

EVENT_FAMILY = "event"
# Families of the flight itself: their sentences describe one situation, shared by every flight question.
FLIGHT_FAMILIES = frozenset({"event", "compensation", "meals", "rebooking", "refund", "communication"})
# Families that say what is asked, not about which situation: any described situation may be the one meant.
GENERIC_FAMILIES = frozenset({"deadline", "complaint", "damage"})
# Topics whose cue words say what happened rather than what is asked: a follow-up carries them forward.
SITUATION_TOPICS = frozenset(
    {
        "delay",
        "cancellation",
        "denied_boarding",
        "tarmac",
        "schedule_change",
        "baggage",
        "bag_lost",
        "damage",
        "instrument",
        "children",
        "disability",
    }
)

_TOPIC_PATTERNS = {topic: re.compile(pattern, re.IGNORECASE) for topic, (_, pattern) in TOPICS.items()}


def topics(text: str) -> set[str]:
    return {topic for topic, pattern in _TOPIC_PATTERNS.items() if pattern.search(text)}


def families(text: str) -> set[str]:
    return {TOPICS[topic][0] for topic in topics(text)}


def cue_words(text: str, wanted: Iterable[str]) -> list[str]:
    """The words of `text` that matched the wanted topics, in order of appearance."""
    found = [match for topic in wanted for match in _TOPIC_PATTERNS[topic].finditer(text)]
    return [match.group(0) for match in sorted(found, key=lambda match: match.start())]


# --- Carriers, as written: a fact a question carries ---

# Canadian carriers first, then carriers often flown to and from Canada.
_CARRIERS_ANY_CASE = (
    "Air Canada Rouge|Air Canada Express|Air Canada|WestJet Encore|WestJet|Sunwing|Air Transat|Transat|PAL Airlines"
    "|Canadian North|Air North|Pascan|Air Inuit|Central Mountain Air|Harbour Air|Calm Air|Air Creebec|KLM|Air France"
    "|Lufthansa|British Airways|American Airlines|Alaska Airlines|Aer Lingus|Iberia|Emirates|Qatar Airways"
    "|Turkish Airlines|Aeromexico|Icelandair|Cathay Pacific|Japan Airlines|Korean Air|EVA Air|Air Europa|Ryanair"
    "|easyJet|Volaris|LATAM|Avianca|Air India|Etihad|Air China|Philippine Airlines|Qantas|Air New Zealand|Finnair"
    "|Brussels Airlines|JetBlue|Southwest|Allegiant|ITA Airways"
)
# Names that are also ordinary words: only capitalised.
_CARRIERS_CAPITALISED = (
    "Porter|Flair|Swoop|Lynx|Jazz|Delta|United(?! States| Kingdom)|Swiss|Condor|ITA|TAP|PAL|Copa|ANA"
)
CARRIER = re.compile(rf"\b(?:(?i:{_CARRIERS_ANY_CASE})|{_CARRIERS_CAPITALISED})\b")

# --- Places, airport codes and Canada's rules: where the flight went, and whether Canada is named ---

# Folded. The gazetteer is short on purpose: a place it misses only means the page asks where the flight went.
_CANADIAN_PLACES = (
    "toronto|montreal|vancouver|calgary|edmonton|ottawa|winnipeg|halifax|quebec|victoria|kelowna|saskatoon|regina"
    "|st\\.? john'?s|saint john|fredericton|moncton|charlottetown|thunder bay|sudbury|windsor|hamilton|kitchener"
    "|waterloo|abbotsford|kamloops|prince george|prince rupert|whitehorse|yellowknife|iqaluit|gander|deer lake"
    "|goose bay|fort mcmurray|grande prairie|nanaimo|comox|penticton|cranbrook|fort st\\.? john|terrace|sept-iles"
    "|rouyn-noranda|val-d'or|bagotville|saguenay|mont-tremblant|sydney|london|pearson|billy bishop|trudeau"
    "|ontario|british columbia|alberta|manitoba|saskatchewan|nova scotia|new brunswick|prince edward island"
    "|newfoundland|labrador|yukon|nunavut|northwest territories"
)
_FOREIGN_PLACES = (
    "united states|america|usa|mexico|mexique|cancun|punta cana|dominican|cuba|havana|varadero|jamaica|montego bay"
    "|bahamas|barbados|aruba|caribbean|antilles|costa rica|puerto vallarta|cabo|los cabos|florida|floride|orlando"
    "|miami|fort lauderdale|tampa|las vegas|los angeles|new york|boston|chicago|seattle|san francisco|denver"
    "|dallas|houston|phoenix|atlanta|hawaii|honolulu|europe|paris|londres|amsterdam|frankfurt|munich|rome|milan"
    "|madrid|barcelona|barcelone|lisbon|lisbonne|porto|dublin|reykjavik|iceland|france|england|angleterre"
    "|germany|allemagne|italy|italie|spain|espagne|portugal|ireland|irlande|greece|grece|athens|istanbul|turkey"
    "|india|inde|delhi|mumbai|china|chine|beijing|shanghai|hong kong|tokyo|japan|japon|seoul|korea|manila"
    "|philippines|australia|australie|dubai|doha|lima|peru|perou|bogota|colombia|colombie|brazil|bresil|africa"
    "|afrique|asia|asie|morocco|maroc|algeria|algerie|haiti|etats-unis|united kingdom|royaume-uni|scotland|ecosse"
    "|edinburgh|edimbourg|glasgow|manchester|heathrow|gatwick|belfast|berlin|vienna|vienne|zurich|geneva|geneve"
    "|brussels|bruxelles|copenhagen|stockholm|oslo|warsaw|prague|budapest|athenes|nice|lyon|marseille|toulouse"
)
PLACE = re.compile(rf"\b(?:{_CANADIAN_PLACES}|{_FOREIGN_PLACES})\b")
FOREIGN_PLACE = re.compile(rf"\b(?:{_FOREIGN_PLACES})\b")
# Folded: London, Ontario, unless the flight is plainly in the United Kingdom.
UK_LONDON = re.compile(
    r"\b(?:heathrow|gatwick|stansted|luton|london city|uk|united kingdom|royaume-uni|england|angleterre"
    r"|scotland|ecosse|edinburgh|edimbourg|glasgow|manchester|belfast|british)\b"
)
# Folded: carriers based in Canada. A flight one of them operates is covered whatever its route.
CANADIAN_CARRIER = re.compile(
    r"\b(?:air canada|westjet|porter|flair|sunwing|air transat|transat|swoop|lynx|jazz|pal airlines|canadian north"
    r"|air north|pascan|air inuit|central mountain air|harbour air|calm air|air creebec)\b"
)
CANADIAN_PLACE = re.compile(rf"\b(?:{_CANADIAN_PLACES})\b")
# Folded. "Canada" alone is not a place when it is part of a carrier's or a law's name.
CANADA = re.compile(r"\bcanada\b(?<!\bair canada)(?! transportation act)")
CANADIAN_RULES = re.compile(
    r"\bcanad\w*|\b(?:appr|cta|otc|rppa|air passenger protection|protection des passagers aeriens"
    r"|office des transports)\b"
)
# Folded: words that say where the flight went without naming a place.
SCOPE_WORDS = re.compile(
    r"\b(?:domestic|international|transborder|overseas|abroad|cross-border|interieur|internationale?"
    r"|transfrontalier|a l'etranger)\b"
)
# Airport codes are written in capitals: every Canadian one starts with Y; a few foreign ones people often name.
CANADIAN_AIRPORT_CODE = re.compile(r"\bY[A-Z]{2}\b")
AIRPORT_CODE = re.compile(
    r"\b(?:Y[A-Z]{2}|LHR|LGW|CDG|ORY|JFK|LGA|EWR|LAX|SFO|SEA|ORD|MIA|MCO|FLL|TPA|LAS|BOS|DFW|ATL|DEN|PHX|HNL"
    r"|AMS|FRA|MUC|FCO|MAD|BCN|LIS|DUB|KEF|DXB|DOH|HND|NRT|ICN|HKG|PEK|PVG|DEL|BOM|MEX|CUN|PUJ|SJO|PVR|SJD"
    r"|MBJ|HAV|VRA|US|USA|UK|EU)\b"
)
# "YYZ - LHR", "YUL→CDG": a route says where the flight went, whatever the arrow.
ROUTE_OF_CODES = re.compile(r"\b[A-Z]{3}\s*(?:-|–|→|->|/|>|to)\s*[A-Z]{3}\b")
# "YYC to YVR" counted as an air-travel word; narrower than ROUTE_OF_CODES (one space, fewer arrows), and counted
# by the coverage check, so the two stay apart. Never "had to get": codes are capitals.
ROUTE_OF_CODES_AMONG_WORDS = re.compile(r"\b[A-Z]{3} ?(?:->|→|-|/|to) ?[A-Z]{3}\b")
# Capitalised words that open no place name: months, days and the abbreviations passengers use.
_MONTHS_AND_DAYS = (
    "January February March April May June July August September October November December Monday Tuesday Wednesday "
    "Thursday Friday Saturday Sunday Janvier Février Mars Avril Mai Juin Juillet Août Septembre Octobre Novembre "
    "Décembre Lundi Mardi Mercredi Jeudi Vendredi Samedi Dimanche"
)
NOT_PLACES = frozenset(_MONTHS_AND_DAYS.split()) | {"I", "The", "My", "Our", "CTA", "PIR", "ATC", "APPR", "EU", "OTC"}

# --- Disruptions and their causes ---

# Folded: words of a disruption that any kind of travel or booking shares, neither for nor against air travel.
DISRUPTION = re.compile(
    r"\b(passengers?|delay(ed|s)?|late|cancel(led|ed|lation)?|compensation|refund(ed)?|claims?|retard|"
    r"annul\w*|indemni\w*)\b"
)
# Why a flight was disrupted, which decides what the carrier owes.
DISRUPTION_CAUSE = re.compile(
    r"\b(?:weather|storm|snow\w*|blizzard|fog|de-?icing|crew(?: shortage| scheduling| availability)?"
    r"|staff(?:ing)? shortage|maintenance|mechanical|technical|safety|air traffic control|ATC|strike"
    r"|(?:IT |computer )?(?:system )?outage|bird strike|medical emergency|météo|tempête|neige|équipage"
    r"|mécanique|technique|sécurité|grève)\b",
    re.IGNORECASE,
)

# --- What the knowledge base covers: air travel, other services, foreign regimes (all folded) ---

# Carriers counted as air-travel words: the Canadian ones people name most. Not CARRIER: folded to lower case,
# "delta", "united" or "swiss" would be ordinary words.
_AIR_TRAVEL_CARRIERS = "air canada|westjet|porter|flair|sunwing|transat|swoop|lynx|jazz"
AIR_TRAVEL = re.compile(
    r"\b(flights?|fl(y|ew|ying|own)|plane|aircraft|airplane|air ?lines?|airport|carrier|boarding|board(ed)?|"
    r"tarmac|runway|gate|pilot|crew|layover|connecting|connection|cabin|seats?|bags?|baggage|luggage|suitcase|"
    r"carry-on|carousel|stroller|cta|bumped|overbooked|oversold|appr|vols?|avion|aerien(ne)?s?|aeroport|"
    rf"transporteur|embarquement|valises?|bagages?|{_AIR_TRAVEL_CARRIERS})\b"
)
OTHER_SERVICE = re.compile(
    r"\b(trains?|rail|railway|via rail|amtrak|bus(es)?|coach|ferry|ferries|cruise|ship|booking\.com|"
    r"airbnb|expedia|car rental|rental car|concert|ticketmaster)\b"
)
# What a carrier provides or pays for while a flight is disrupted: another service only when no flight is named.
STAY_AND_RIDE = re.compile(r"\b(hotels?|motels?|hebergement|accommodation|rooms?|uber|taxis?|meals?|repas)\b")
# The law speaks of persons with disabilities on trains, buses and ferries too. Broader than the "disability"
# topic ("mobility" alone counts here), so the two stay apart.
DISABILITY = re.compile(r"\b(disab\w*|wheelchair|mobility|service (dog|animal)|handicap\w*|fauteuil)\b")
FOREIGN_REGIME = re.compile(
    r"\b(eu ?261|ec ?261|uk ?261|261/2004|eu (law|rules|regulation)|european (law|rules|regulation)|"
    r"(us|u\.s\.|american) (dot|department of transportation)|montreal protocol no)\b"
)

# --- Languages: telling a message the product cannot read, and words too common to relate two texts ---

# Spanish, Portuguese, Italian, German, Dutch, Polish, Tagalog, Romanian and Turkish, folded (no accents).
OTHER_LANGUAGE_AIR_WORDS = frozenset(
    "vuelo vuelos aerolinea aerolineas equipaje maleta maletas aeropuerto retraso retrasado cancelaron "
    "reembolso indemnizacion voo voos companhia bagagem aeroporto atraso atrasado cancelaram indenizacao "
    "volo voli bagaglio bagagli valigia ritardo cancellato rimborso risarcimento flug fluges fluggesellschaft "
    "gepack koffer flughafen verspatung verspatet annulliert storniert erstattung entschadigung vlucht "
    "vluchten luchtvaartmaatschappij luchthaven vliegveld vertraging vertraagd geannuleerd terugbetaling "
    "samolot bagaz walizka lotnisko opoznienie odwolany odszkodowanie eroplano bagahe paliparan naantala "
    "kinansela lipad zbor zborul valiza intarziere anulat ucus ucak valiz havalimani rotar iptal".split()
)
OTHER_LANGUAGE_COMMON_WORDS = frozenset(
    "el los las mi mis y por para con fue pero muy hay del al o um uma meu minha foi nao com sem para "
    "il lo gli mio mia e ho sono stato non ich mein meine mit und ist war wurde nicht der die das ein eine "
    "het een mijn ik en niet werd met mnie moj moja jest byl nie ako ang ko sa ng na hindi ay si eu meu "
    "am fost benim ve bir icin zostal".split()
)
# Folded English and French words weighed against the two lists above.
ENGLISH_FRENCH_WORDS = frozenset(
    "the and is my was i to of for with they have what how do does can it on at flight bag delayed cancelled "
    "luggage airline hours le les des du une est et je j mon ma mes vol valise bagage bagages retard annule "
    "avec pour dans pas ai ete suis quel quelle combien droit".split()
)
# Words of four letters or more too common to show that a question relates to the conversation.
TOO_COMMON_TO_RELATE = frozenset(
    "that this with have from what when will would could should they their them there about which your into been "
    "were does than then just also only here some more much very like dans pour avec sont être nous vous quel "
    "quelle".split()
)
