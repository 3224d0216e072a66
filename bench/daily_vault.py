"""A vault as people keep one: daily notes from a template, plus topic notes (issue 39).

    python bench/daily_vault.py OUT [--days 240] [--seed 39]

Deterministic (one seeded ``random.Random``): the same arguments write the
same bytes. Each daily note is the template's scaffold — frontmatter, a
title, a previous/next line, ``Mood::``/``Energy::`` fields, "## Tasks" with
a fixed checklist, "## Log", "## Reading", "## Reflection" with its two
prompts, a ```dataview block — filled with real writing: meetings, project
work, reading notes, errands, training, drawn from recurring topics that the
ordinary notes (``Projects/``, ``People/``, ``Reading/``, ``Areas/``) are
about. Some facts happen on one day only, and a few stories run over
several days (``THREADS``); the golden questions ask about those.

``--golden`` and ``--related`` write the question set and the related-notes
judgments derived from the same tables (``FACTS``, ``THREADS``,
``TOPIC_QUESTIONS``, ``RELATED_TOPICS``), written before any ranking of this
vault was looked at; ``bench/golden/daily-*.jsonl`` are their committed
output for the defaults.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from dataclasses import dataclass
from pathlib import Path

START = dt.date(2026, 1, 5)  # a Monday

TEMPLATE = """---
date: {{date}}
tags: [daily]
type: daily
---
# {{title}}

<< [[{{prev}}]] | [[{{next}}]] >>

Mood::
Energy::

## Tasks
- [ ] Review inbox and calendar
- [ ] Plan the top three for today

## Log

## Reading

## Reflection
**What went well today?**
**What could have gone better?**

## Linked today
```dataview
LIST FROM "" WHERE file.cday = this.file.day SORT file.name ASC
```
"""


@dataclass(frozen=True)
class Topic:
    note: str  # the topic note's vault path
    lines: tuple[str, ...]  # log lines that mention it (a [[link]] to the note)


TOPICS: dict[str, Topic] = {
    "atlas": Topic("Projects/Atlas billing migration.md", (
        "Worked on [[Atlas billing migration]]: wrote the dual-write shim for invoice rows.",
        "[[Atlas billing migration]]: replayed last month's invoices against Postgres, totals match to the cent.",
        "Paired with [[Marco Rossi]] on the Atlas schema, we dropped the legacy currency column.",
        "Atlas: the nightly reconciliation job flagged 14 invoices with rounding differences.",
        "[[Atlas billing migration]]: load test at 3x peak, p99 write latency stayed under 40 ms.",
        "Atlas cutover checklist reviewed with the on-call team.",
        "Atlas: fixed the sequence gap that broke invoice numbering in staging.",
    )),
    "shed": Topic("Projects/Garden shed.md", (
        "[[Garden shed]]: dug the holes for the concrete piers, clay soil below 40 cm.",
        "Shed: cut the floor joists, treated timber takes forever to dry.",
        "[[Garden shed]]: the roof felt is on, one corner still leaks when it rains sideways.",
        "Bought more galvanised screws for the shed cladding.",
        "[[Garden shed]]: painted the door sage green, two coats.",
    )),
    "talk": Topic("Projects/CRDT talk.md", (
        "[[CRDT talk]]: rewrote the opening around the shopping-list example.",
        "Talk prep: recorded a dry run, 34 minutes, need to cut the vector-clock detour.",
        "[[CRDT talk]]: made the diagram of two replicas merging a text edit.",
        "Talk: the organisers of LocalFirst Conf asked for slides by the 20th.",
    )),
    "kitchen": Topic("Projects/Kitchen renovation.md", (
        "[[Kitchen renovation]]: measured the wall for the new worktop, 312 cm end to end.",
        "Kitchen: compared quotes for quartz versus oak worktops.",
        "[[Kitchen renovation]]: the electrician moved the sockets above the counter.",
        "Kitchen: tiles for the splash-back arrived, two boxes cracked.",
    )),
    "anna": Topic("People/Anna Keller.md", (
        "1:1 with [[Anna Keller]]: went through the team's roadmap for the quarter.",
        "1:1 with [[Anna Keller]]: she asked for a written summary of the Atlas risks.",
        "Anna: talked about hiring a second backend engineer.",
    )),
    "marco": Topic("People/Marco Rossi.md", (
        "Coffee with [[Marco Rossi]], he is moving to the platform team in spring.",
        "[[Marco Rossi]] reviewed my migration script, found a missing index on customer_id.",
    )),
    "ddia": Topic("Reading/Designing Data-Intensive Applications.md", (
        "[[Designing Data-Intensive Applications]] ch. 5: leaderless replication and sloppy quorums.",
        "DDIA: the chapter on transactions finally made write skew click for me.",
        "[[Designing Data-Intensive Applications]]: notes on log-structured storage and compaction.",
    )),
    "systems": Topic("Reading/Thinking in Systems.md", (
        "[[Thinking in Systems]]: stocks and flows, a bathtub is the simplest model.",
        "Thinking in Systems: balancing feedback loops explain why the thermostat overshoots.",
        "[[Thinking in Systems]]: leverage points, changing the rules beats changing the numbers.",
    )),
    "overstory": Topic("Reading/The Overstory.md", (
        "[[The Overstory]]: the chestnut chapter, a whole family photographing one tree.",
        "The Overstory: Patricia Westerford's idea that trees talk through fungi.",
    )),
    "weeks": Topic("Reading/Four Thousand Weeks.md", (
        "[[Four Thousand Weeks]]: the efficiency trap, clearing the inbox only fills it faster.",
        "Four Thousand Weeks: pick your failures deliberately.",
    )),
    "run": Topic("Areas/Half marathon training.md", (
        "Run: 8 km easy along the canal, kept the heart rate under 150.",
        "[[Half marathon training]]: intervals, 6 x 800 m at 4:20 per km.",
        "Long run, 16 km, the left knee felt tight after 12.",
        "[[Half marathon training]]: tempo run, 5 km at race pace.",
    )),
    "physio": Topic("People/Dr Ilse Brandt.md", (
        "Physio with [[Dr Ilse Brandt]]: clamshells and side planks for the knee.",
        "[[Dr Ilse Brandt]] said the IT band is the problem, not the joint.",
    )),
    "miso": Topic("Areas/Miso the cat.md", (
        "[[Miso the cat]] knocked the basil off the windowsill again.",
        "Bought the renal diet food for [[Miso the cat]].",
        "Miso is sleeping in the laundry basket all day.",
    )),
    "car": Topic("Areas/Car - VW Golf.md", (
        "Car: topped up the washer fluid and checked the tyre pressure.",
        "[[Car - VW Golf]]: the check engine light came on and went off again.",
    )),
    "tax": Topic("Areas/Tax return 2025.md", (
        "[[Tax return 2025]]: collected the receipts for the home office.",
        "Tax: downloaded the annual statement from the bank.",
    )),
    "sourdough": Topic("Recipes/Sourdough.md", (
        "Baked [[Sourdough]], 75% hydration, the crumb was too tight.",
        "Fed the starter, it doubled in five hours.",
    )),
}

ROUTINE = (
    "Standup: nothing blocking.",
    "Standup: waiting on the review of my pull request.",
    "Cleared the inbox.",
    "Groceries: oat milk, lentils, spinach, coffee.",
    "Cooked dal with rice.",
)

MOODS = ("good", "ok", "tired", "great", "low")

# (day number, section, text, question, kind): facts that happen on one day.
FACTS: list[tuple[int, str, str, str, str]] = [
    (3, "Log", "The boiler stopped heating overnight, the pressure gauge read 0.3 bar; booked Kessler Heating.",
     "why was there no hot water in early January", "natural"),
    (5, "Log", "Kessler's engineer repressurised the boiler and said the expansion vessel is failing.",
     "what did the heating engineer say was wrong with the boiler", "natural"),
    (12, "Log", "Kessler replaced the expansion vessel on the boiler, invoice 410 euros.",
     "how much did the boiler repair cost", "natural"),
    (9, "Log", "Passport renewal: photos taken at the pharmacy, appointment at the town hall on the 28th.",
     "when is my passport appointment", "natural"),
    (17, "Log", "Vet: Miso's bloodwork shows early kidney disease, switch her to a renal diet.",
     "what did the vet find in the cat's blood test", "natural"),
    (23, "Log", "Garage quoted 240 euros for new front brake pads on the Golf, booked for Thursday.",
     "price for replacing the brake pads", "paraphrase"),
    (31, "Log", "Anna told me the promotion case goes to the committee in March; she wants a one-page summary.",
     "what did my manager say about my promotion", "natural"),
    (38, "Log", "Atlas incident: a retry storm duplicated 212 invoices during the shadow run; rolled back at 14:10.",
     "duplicated invoices incident during the migration", "keyword"),
    (44, "Reading", "Finished The Overstory. The ending with the seed bank made me want to plant a walnut tree.",
     "which novel did I finish and what did it make me want to do", "paraphrase"),
    (52, "Log", "Signed the contract with Holzbau Weber for the kitchen cabinets, delivery in week 18.",
     "who is building the kitchen cabinets", "natural"),
    (58, "Log", "Ran the Stadtpark 10k as a test race: 47:12, negative split.",
     "10k race result", "keyword"),
    (66, "Log", "Dentist: a small cavity in the lower left molar, filling booked for next month.",
     "what did the dentist find", "natural"),
    (73, "Log", "The CRDT talk was accepted for LocalFirst Conf in Lisbon, 30-minute slot on the second day.",
     "did my conference talk get accepted", "natural"),
    (80, "Log", "Tax return submitted online; expecting a refund of about 860 euros.",
     "how big is my tax refund expected to be", "paraphrase"),
    (87, "Log", "Atlas cutover night: billing switched to Postgres at 02:00, the first invoices ran clean.",
     "when did billing go live on the new database", "paraphrase"),
    (95, "Log", "Sourdough experiment: a 36-hour cold retard gave the best ear so far.",
     "how long a cold proof gave the best sourdough", "paraphrase"),
    (101, "Log", "Marco's farewell lunch at the Vietnamese place; gave him the cast-iron pan as a present.",
     "what present did we give Marco when he left", "natural"),
    (109, "Log", "The shed roof leak was the ridge flashing; resealed it with butyl tape.",
     "what caused the leak in the shed roof", "natural"),
    (116, "Log", "Flew to Lisbon; rehearsed the talk twice in the hotel room.",
     "trip to Lisbon for the conference", "keyword"),
    (117, "Log", "Gave the CRDT talk, about 200 people; the question about tombstone garbage collection stumped me.",
     "which audience question could I not answer at my talk", "paraphrase"),
    (130, "Log", "Physio cleared me to run again after the IT band flare-up; start with 3 x 2 km.",
     "when was I allowed to start running again after the knee injury", "paraphrase"),
    (142, "Log", "Half marathon done: 1:44:30, the last 3 km were brutal.",
     "half marathon finishing time", "keyword"),
    (150, "Log", "Insurance renewal for the flat went up 18%; asked for a quote from another provider.",
     "home insurance price increase", "keyword"),
    (163, "Reading",
     "Started Four Thousand Weeks on the train; the first chapter on time as a finite resource hit hard.",
     "when did I start reading the book about time management and mortality", "paraphrase"),
    (171, "Log", "Kitchen worktops fitted; the oak needs oiling every three months.",
     "how often should the oak worktop be oiled", "natural"),
    (184, "Log", "Miso's kidney values improved on the renal diet, next check in six months.",
     "is the cat's kidney diet working", "natural"),
    (197, "Log", "Hired Priya Nair as the second backend engineer; she starts on the first of the month.",
     "who did we hire for the backend team", "natural"),
    (210, "Log", "Car failed the inspection on a worn rear tyre and a cracked number plate light.",
     "why did the car fail its inspection", "natural"),
    (222, "Log", "Planted the walnut sapling at the back of the garden, next to the shed.",
     "where did I plant the tree", "natural"),
    (233, "Log", "Q3 planning: we agreed to retire the old MySQL billing replica by October.",
     "decision about the old billing database replica", "keyword"),
]

# Stories over several days: (days, topic note they belong to).
THREADS: list[tuple[tuple[int, ...], str]] = [
    ((3, 5, 12), "Areas/Home - boiler.md"),
    ((17, 184), "Areas/Miso the cat.md"),
    ((73, 116, 117), "Projects/CRDT talk.md"),
    ((38, 87, 233), "Projects/Atlas billing migration.md"),
    ((58, 130, 142), "Areas/Half marathon training.md"),
    ((52, 171), "Projects/Kitchen renovation.md"),
]

TOPIC_NOTES: dict[str, str] = {
    "Projects/Atlas billing migration.md": """---
tags: [project, work]
status: active
---
# Atlas billing migration

Moving the billing service off the old MySQL cluster onto Postgres 16, without
downtime for invoicing. Owner: me; database review by [[Marco Rossi]];
sponsor [[Anna Keller]].

## Plan
1. Dual-write invoices and payments to both databases behind a flag.
2. Shadow-read for two weeks, compare totals nightly (the reconciliation job).
3. Cut over at night, keep MySQL as a read-only replica until Q3.

## Risks
- Invoice numbering relies on MySQL auto-increment; Postgres sequences can leave gaps.
- Currency rounding differs (MySQL DECIMAL(10,2) vs numeric); reconcile to the cent.
- Retry logic in the payment webhook could double-write during the shadow phase.

## Background
Read the replication chapters of [[Designing Data-Intensive Applications]] before designing the dual writes.
""",
    "Projects/Garden shed.md": """---
tags: [project, home]
---
# Garden shed

A 2.4 x 1.8 m timber shed at the back of the garden for bikes and tools.

## Materials
- Treated C24 timber for the frame, 47 x 75 mm
- Shiplap cladding, galvanised screws
- Torch-on roof felt, ridge flashing
- Six concrete piers instead of a slab (cheaper, better drainage)

## Lessons
Clay soil holds water: the piers needed gravel at the bottom.
""",
    "Projects/CRDT talk.md": """---
tags: [project, talk]
---
# CRDT talk

"Merging without a server": a 30-minute talk for LocalFirst Conf in Lisbon on
conflict-free replicated data types for note-taking apps.

## Outline
- A shopping list edited on two phones offline
- State-based vs operation-based CRDTs
- Text: sequence CRDTs, tombstones and their garbage collection
- What this means for sync in real apps

## Sources
[[Designing Data-Intensive Applications]], the Automerge papers, Kleppmann's talks.
""",
    "Projects/Kitchen renovation.md": """---
tags: [project, home]
---
# Kitchen renovation

New cabinets, worktop and splash-back tiles; the layout stays.

## Budget
| item | estimate |
|---|---|
| cabinets | 6,500 |
| oak worktop | 1,400 |
| tiles and fitting | 900 |
| electrician | 450 |

## Decisions
- Oak over quartz: warmer, repairable, needs oiling.
- Sockets move above the counter, four doubles.
""",
    "Areas/Home - boiler.md": """---
tags: [home]
---
# Home - boiler

Combi boiler, installed 2014, serviced every autumn by Kessler Heating.

## When it loses pressure
Normal pressure is 1.0-1.5 bar cold. Below 0.5 it locks out: refill through the
filling loop under the boiler, then check the expansion vessel if it keeps dropping.
""",
    "Areas/Miso the cat.md": """---
tags: [pets]
---
# Miso the cat

Tabby, born 2013. Vet: Tierarztpraxis am Park.

## Health
- Yearly vaccinations in March
- Bloodwork every six months since the kidney diagnosis
- Renal diet food only; no treats with phosphorus
""",
    "Areas/Half marathon training.md": """---
tags: [health, running]
---
# Half marathon training

Goal: the city half marathon in May, under 1:45.

## Plan
Three runs a week: intervals on Tuesday, tempo on Thursday, a long run on Sunday,
building from 12 to 19 km. Strength work twice a week for the knees.

## Injuries
IT band trouble in the left knee; see [[Dr Ilse Brandt]].
""",
    "Areas/Car - VW Golf.md": """---
tags: [car]
---
# Car - VW Golf

2016 Golf, 1.4 TSI. Inspection due every two years; oil change every 15,000 km.
Tyres: 205/55 R16, winter set in the cellar.
""",
    "Areas/Tax return 2025.md": """---
tags: [finance]
---
# Tax return 2025

Deductible: home office (flat rate), the standing desk, professional books,
the conference trip. Deadline 31 July; submitted through the online portal.
""",
    "People/Anna Keller.md": """---
tags: [people, work]
---
# Anna Keller

My manager since 2024. Weekly 1:1 on Mondays. Prefers written summaries to
slides; cares about on-call health and hiring.
""",
    "People/Marco Rossi.md": """---
tags: [people, work]
---
# Marco Rossi

Database engineer, Postgres expert. Reviewed the [[Atlas billing migration]]
schema. Moving to the platform team in spring. Loves cooking with cast iron.
""",
    "People/Dr Ilse Brandt.md": """---
tags: [people, health]
---
# Dr Ilse Brandt

Sports physiotherapist at the clinic near the station. Treats my knee (IT band).
Exercises: clamshells, side planks, foam rolling.
""",
    "Reading/Designing Data-Intensive Applications.md": """---
tags: [reading, book]
author: Martin Kleppmann
---
# Designing Data-Intensive Applications

## Key ideas
- Replication: single-leader, multi-leader and leaderless, each with its own conflicts.
- Transactions: isolation levels, write skew and phantoms.
- Storage engines: B-trees versus log-structured merge trees.
""",
    "Reading/Thinking in Systems.md": """---
tags: [reading, book]
author: Donella Meadows
---
# Thinking in Systems

Stocks, flows and feedback loops. Delays in balancing loops cause oscillation.
The most powerful leverage points are paradigms and goals, not parameters.
""",
    "Reading/The Overstory.md": """---
tags: [reading, book, fiction]
author: Richard Powers
---
# The Overstory

A novel of nine people whose lives are changed by trees. Themes: deep time,
activism, forests as communities that share resources underground.
""",
    "Reading/Four Thousand Weeks.md": """---
tags: [reading, book]
author: Oliver Burkeman
---
# Four Thousand Weeks

Time management for mortals: an average life is about four thousand weeks.
Accept finitude, choose what to neglect, stop waiting to get on top of everything.
""",
    "Recipes/Sourdough.md": """---
tags: [recipe]
---
# Sourdough

500 g flour (80% bread, 20% whole wheat), 375 g water, 100 g starter, 10 g salt.
Bulk ferment 4-5 hours with folds, shape, cold retard overnight, bake at 250 °C
in a Dutch oven: 20 minutes lid on, 25 lid off.
""",
    "Recipes/Dal.md": """---
tags: [recipe]
---
# Dal

Red lentils simmered with turmeric; a tarka of cumin, mustard seeds, garlic and
chilli in ghee poured over at the end. Serve with rice and lime.
""",
    "Templates/Daily.md": TEMPLATE,
}

# Questions whose answer is a topic note: (question, expected, kind).
TOPIC_QUESTIONS: list[tuple[str, str, str]] = [
    ("what could go wrong with invoice numbers when moving to postgres",
     "Projects/Atlas billing migration.md", "paraphrase"),
    ("how big is the shed and what is it for", "Projects/Garden shed.md", "natural"),
    ("outline of my talk about merging data without a server", "Projects/CRDT talk.md", "paraphrase"),
    ("kitchen budget for cabinets and worktop", "Projects/Kitchen renovation.md", "keyword"),
    ("what to do when the boiler pressure drops", "Areas/Home - boiler.md", "natural"),
    ("weekly running schedule for the race", "Areas/Half marathon training.md", "paraphrase"),
    ("tyre size of my car", "Areas/Car - VW Golf.md", "keyword"),
    ("what can I deduct on my taxes", "Areas/Tax return 2025.md", "natural"),
    ("who is my manager and how does she like updates", "People/Anna Keller.md", "natural"),
    ("exercises for the IT band", "People/Dr Ilse Brandt.md", "keyword"),
    ("book about leverage points and feedback loops", "Reading/Thinking in Systems.md", "paraphrase"),
    ("B-trees versus LSM trees", "Reading/Designing Data-Intensive Applications.md", "keyword"),
    ("how much water and salt in my bread recipe", "Recipes/Sourdough.md", "natural"),
    ("lentil recipe with cumin and mustard seeds", "Recipes/Dal.md", "keyword"),
]

# Related-notes judgments for topic notes: which other topic notes are truly related.
RELATED_TOPICS: dict[str, tuple[str, ...]] = {
    "Projects/Atlas billing migration.md": ("People/Marco Rossi.md", "People/Anna Keller.md",
                                            "Reading/Designing Data-Intensive Applications.md"),
    "Projects/CRDT talk.md": ("Reading/Designing Data-Intensive Applications.md",),
    "Areas/Half marathon training.md": ("People/Dr Ilse Brandt.md",),
    "People/Dr Ilse Brandt.md": ("Areas/Half marathon training.md",),
    "People/Marco Rossi.md": ("Projects/Atlas billing migration.md",),
    "Projects/Garden shed.md": ("Projects/Kitchen renovation.md",),
    "Projects/Kitchen renovation.md": ("Projects/Garden shed.md",),
    "Reading/Designing Data-Intensive Applications.md": ("Projects/Atlas billing migration.md",
                                                         "Projects/CRDT talk.md"),
}


def daily_path(day: int) -> str:
    return f"Daily/{(START + dt.timedelta(days=day)).isoformat()}.md"


@dataclass
class DailyPlan:
    tasks: list[str]
    log: list[str]
    reading: list[str]
    topics: set[str]


def _plan(rng: random.Random, day: int, facts: dict[int, list[tuple[str, str]]]) -> DailyPlan:
    date = START + dt.timedelta(days=day)
    weekday = date.weekday()
    log: list[str] = []
    topics: set[str] = set()
    if weekday < 5:
        log.append(rng.choice(ROUTINE[:2]))
        if weekday == 0:
            log.append(rng.choice(TOPICS["anna"].lines))
            topics.add("anna")
        work = rng.sample(["atlas", "atlas", "talk", "marco", "ddia"], k=rng.randint(1, 2))
    else:
        work = rng.sample(["shed", "kitchen", "sourdough", "car", "tax"], k=rng.randint(1, 2))
    extra = rng.sample(["run", "miso", "physio", "systems", "weeks"], k=rng.randint(0, 2))
    for t in dict.fromkeys(work + extra):
        log.append(rng.choice(TOPICS[t].lines))
        topics.add(t)
    if rng.random() < 0.3:
        log.append(rng.choice(ROUTINE[2:]))
    reading: list[str] = []
    if rng.random() < 0.35:
        t = rng.choice(["ddia", "systems", "overstory", "weeks"])
        reading.append(rng.choice(TOPICS[t].lines))
        topics.add(t)
    for section, text in facts.get(day, []):
        (reading if section == "Reading" else log).append(text)
    whom = ["the plumber", "the bank", "the dentist", "the electricity bill", "the bike light", "the school form"]
    tasks = [f"- [ ] {rng.choice(['Email', 'Call', 'Book', 'Pay', 'Fix'])} {rng.choice(whom)}"
             for _ in range(rng.randint(0, 2))]
    return DailyPlan(tasks, log, reading, topics)


def _daily(day: int, plan: DailyPlan, rng: random.Random) -> str:
    date = START + dt.timedelta(days=day)
    title = f"{date:%A}, {date.day} {date:%B %Y}"  # %-d is not portable
    mood = rng.choice(MOODS)
    energy = rng.randint(1, 5)
    out = [
        "---", f"date: {date.isoformat()}", "tags: [daily]", "type: daily", "---",
        f"# {title}", "",
        f"<< [[{(date - dt.timedelta(days=1)).isoformat()}]] | [[{(date + dt.timedelta(days=1)).isoformat()}]] >>", "",
        f"Mood:: {mood}", f"Energy:: {energy}", "",
        "## Tasks", "- [ ] Review inbox and calendar", "- [ ] Plan the top three for today", *plan.tasks, "",
        "## Log", *[f"- {x}" for x in plan.log], "",
        "## Reading", *([f"- {x}" for x in plan.reading] or []), "",
        "## Reflection", "**What went well today?**",
    ]
    if rng.random() < 0.4:
        out.append(rng.choice(["Got deep work done before lunch.", "A long walk in the evening.",
                               "Said no to a meeting that did not need me.", "Cooked instead of ordering."]))
    out.append("**What could have gone better?**")
    if rng.random() < 0.3:
        out.append(rng.choice(["Too much time in Slack.", "Went to bed late.", "Skipped the stretching."]))
    out += ["", "## Linked today", "```dataview",
            'LIST FROM "" WHERE file.cday = this.file.day SORT file.name ASC', "```", ""]
    return "\n".join(out)


def build(out: Path, days: int = 240, seed: int = 39) -> dict[str, set[str]]:
    """Write the vault; returns each daily's topics (note paths it mentions)."""
    rng = random.Random(seed)
    facts: dict[int, list[tuple[str, str]]] = {}
    for day, section, text, _, _ in FACTS:
        if day < days:
            facts.setdefault(day, []).append((section, text))
    mentions: dict[str, set[str]] = {}
    for day in range(days):
        plan = _plan(rng, day, facts)
        path = out / daily_path(day)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_daily(day, plan, rng), encoding="utf-8")
        mentions[daily_path(day)] = {TOPICS[t].note for t in plan.topics}
    for rel, text in TOPIC_NOTES.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return mentions


def golden_lines(days: int = 240) -> list[dict]:
    rows = [{"query": q, "expected": [daily_path(d)], "lang": "en", "kind": kind}
            for d, _, _, q, kind in FACTS if d < days]
    rows += [{"query": q, "expected": [p], "lang": "en", "kind": kind} for q, p, kind in TOPIC_QUESTIONS]
    return rows


def related_lines(days: int = 240) -> list[dict]:
    """Which notes are truly related: a thread's days to each other and to its
    topic note; a topic note to the notes in ``RELATED_TOPICS`` and to the
    days of its threads."""
    rows: list[dict] = []
    for thread, topic in THREADS:
        paths = [daily_path(d) for d in thread if d < days]
        for p in paths:
            rows.append({"note": p, "related": [q for q in paths if q != p] + [topic]})
    by_topic: dict[str, list[str]] = {}
    for thread, topic in THREADS:
        by_topic.setdefault(topic, []).extend(daily_path(d) for d in thread if d < days)
    for note in sorted(set(RELATED_TOPICS) | set(by_topic)):
        rows.append({"note": note, "related": [*RELATED_TOPICS.get(note, ()), *by_topic.get(note, [])]})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--days", type=int, default=240)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--golden", type=Path, help="also write the questions (JSON Lines) here")
    ap.add_argument("--related", type=Path, help="also write the related-notes judgments here")
    a = ap.parse_args()
    build(a.out, a.days, a.seed)
    if a.golden:
        a.golden.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in golden_lines(a.days)))
    if a.related:
        a.related.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in related_lines(a.days)))
    print(f"wrote {a.days} daily notes and {len(TOPIC_NOTES)} other notes to {a.out}")


if __name__ == "__main__":
    main()
