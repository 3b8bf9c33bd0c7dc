"""Write the conversational evaluation set (deterministic: ``python eval/conversations/generate.py``).

Eight multi-session dialogues (four between a developer and a coding agent, four between two
colleagues), 14 sessions each, 12 turns a session, as JSON Lines under this folder
(``dNN.jsonl``: one turn a line, ``{"id", "speaker", "text", "time", "session"}``), and
``questions.jsonl``: 28 questions a dialogue, each labelled with its evidence turn ids and a
category (``single-detail``, ``temporal`` — "when did …", ``multi-turn`` — the answer is
spread over a question and its reply, ``inference`` — the answer must be inferred from what
was said). Questions are worded apart from their evidence (paraphrases: they share the
topic's names at most, often not even those). Filler turns reuse each dialogue's names, so
the evidence has distractors that share its words.

Split: dialogues 1–4 are ``tune``, 5–8 ``heldout`` (never tuned on).

``null.jsonl``: 40 queries about things no memory holds — random tokens, invented words and
off-topic questions — each checked here to share no word (after lower-casing) with any turn
of the dialogues or any page of the documentation corpus, so a search that returns anything
for one of them returned something unrelated.

Written before any search mode was measured on it (issue 40, item 6).
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DOCS = ROOT / "tests" / "fixtures" / "corpora" / "silverbullet"
SESSIONS = 14
TURNS = 12  # per session
FACTS = 28  # questions per dialogue

SERVICES = ["billing service", "auth gateway", "search indexer", "notification worker",
            "report exporter", "payments API", "ingest pipeline", "admin dashboard",
            "image resizer", "webhook relay", "audit log service", "pricing engine"]
DBS = ["PostgreSQL", "Redis", "DynamoDB", "ClickHouse", "MongoDB", "Cassandra", "MySQL",
       "CockroachDB"]
LIBS = [("pydantic", "1.10.13"), ("SQLAlchemy", "1.4.49"), ("requests", "2.28.2"),
        ("celery", "5.2.7"), ("boto3", "1.26.90"), ("numpy", "1.24.4"), ("protobuf", "3.20.3"),
        ("httpx", "0.23.3"), ("fastapi", "0.95.2"), ("grpcio", "1.51.3")]
HOSTS = ["stg-eu-02.internal", "preprod-lab-7", "qa-box-3.corp", "staging-west-1",
         "sandbox-ash-04", "rc-cluster-b"]
TESTS = ["test_invoice_rounding", "test_token_refresh", "test_export_csv_headers",
         "test_retry_budget", "test_webhook_signature", "test_daily_digest",
         "test_merge_conflicts", "test_cache_eviction"]
PETS = ["Biscuit", "Mango", "Pixel", "Noodle", "Juniper", "Waffles", "Pepper", "Ziggy"]
PEOPLE = ["Priya", "Tomasz", "Aiko", "Rafael", "Ingrid", "Kwame", "Lucia", "Dmitri",
          "Fatima", "Oskar", "Mei", "Santiago", "Nadia", "Elif", "Bongani", "Camille"]
CITIES = ["Lisbon", "Montreal", "Nairobi", "Osaka", "Tallinn", "Valparaiso", "Porto",
          "Hanoi", "Reykjavik", "Cape Town", "Krakow", "Bogota"]
CONFS = ["PyCon", "KubeCon", "StrangeLoop", "RustConf", "QCon", "GopherCon", "FOSDEM",
         "DevOpsDays"]
TOPICS = ["property-based testing", "eBPF tracing", "CRDTs", "query planners",
          "supply-chain security", "WebAssembly runtimes", "incremental builds",
          "load shedding"]
LANGS = [("Python", "3.12"), ("Node", "20"), ("Java", "21"), ("Go", "1.22"), ("Ruby", "3.3"),
         ("Rust", "1.76")]
CLOUDS = ["AWS", "GCP", "Azure", "Hetzner", "DigitalOcean"]
DAYS = ["Tuesday", "Wednesday", "Thursday", "Friday"]
FLAGS = [("new_checkout_flow", "the new checkout"), ("dark_mode_beta", "the dark theme"),
         ("async_exports", "background exports"), ("smart_retry", "adaptive retries"),
         ("v2_search_ranking", "the second search ranking"),
         ("bulk_invite", "inviting many users at once")]
CMDS = ["prune", "sweep", "tidy", "vacuum", "gc", "reap"]
BRANCHES = ["fix/flaky-clock", "feat/bulk-upload", "chore/bump-deps", "fix/null-tenant",
            "feat/csv-export", "refactor/retry-loop", "fix/tz-offsets", "feat/sso-okta"]
GENRES = [("a mix of science fiction and courtroom drama", "book"),
          ("a slow-burn mystery set on a fishing boat", "novel"),
          ("mostly jazz covers of video game music", "album"),
          ("a documentary about lighthouse keepers", "film"),
          ("a cookbook of Georgian dumplings", "book"),
          ("a horror podcast told through voicemails", "podcast")]
VARS = [("APP_DB_URL", "DATABASE_URL"), ("SVC_TIMEOUT", "HTTP_TIMEOUT_SECONDS"),
        ("LOG_LVL", "LOG_LEVEL"), ("CACHE_DIR", "XDG_CACHE_HOME"),
        ("QUEUE_HOST", "BROKER_URL"), ("S3_BUCKET", "STORAGE_BUCKET")]


def facts(w: dict, r: random.Random) -> list[dict]:
    """Every fact template filled from the dialogue's world ``w``: evidence turns (speaker
    role ``a``/``b``, text) and the question asked of them."""
    a, c = w["a_name"], w["c"]
    svc, svc2 = w["svc"], w["svc2"]
    lib, ver = w["lib"]
    lang, lver = w["lang"]
    flag, flagdesc = w["flag"]
    genre, work = w["genre"]
    old, new = w["var"]
    n = w["n"]
    F = []

    def add(cat: str, turns: list[tuple[str, str]], *questions: str) -> None:
        F.append({"category": cat, "turns": turns, "question": r.choice(questions)})

    # single detail
    add("single-detail", [("a", f"For the {svc} let's keep sessions in {w['db']}; we already "
                                 "pay for a managed cluster there.")],
        f"Where do we store login state for the {svc}?",
        "Which datastore did we pick for user sessions?")
    add("single-detail", [("b", f"I raised the HTTP client timeout in the {svc2} from 5 to "
                                f"{n % 40 + 12} seconds.")],
        f"How long does the {svc2} wait on a slow call before giving up now?",
        "What is the new limit before outbound requests are abandoned?")
    add("single-detail", [("a", f"Staging lives on {w['host']} — ssh in as deploy, never as "
                                "root.")],
        "Which machine is our pre-production environment?",
        "What box do we test releases on before they go live?")
    add("single-detail", [("b", f"The intermittent failure was {w['test']}: it read the wall "
                                "clock, so I froze time with a fixture.")],
        "Why did that test keep breaking at random?",
        "What made the unreliable check fail only sometimes?")
    add("single-detail", [("a", f"Sorry, {w['pet']} jumped on the desk and knocked my coffee "
                                "over the keyboard, I'm on the old laptop today.")],
        f"What is the name of {a}'s cat?", f"What is {a}'s pet called?")
    add("single-detail", [("a", f"We pinned {lib} to {ver} because the next release broke our "
                                "serializer.")],
        f"Which release of {lib} are we stuck on, and why?",
        "Why is one dependency held back to an old version?")
    add("single-detail", [("b", f"Retries use exponential backoff from {(n % 5 + 1) * 100} ms, "
                                "capped at five attempts.")],
        "How does the client wait between failed calls?",
        "What happens when a request errors out repeatedly?")
    add("single-detail", [("a", f"Release {n % 9 + 2}.{n % 7} ships on {w['day']}, right after "
                                "the freeze ends.")],
        "What day does the next version go out?",
        "When is the upcoming launch planned?")
    add("single-detail", [("a", f"On-call this month: {c} takes the first week, then me.")],
        "Who carries the pager at the start of the month?",
        "Who is responsible for night incidents in week one?")
    add("single-detail", [("b", f"The leak was an unbounded LRU inside the {svc}; I capped it "
                                f"at {n * 10 + 500} entries.")],
        "What was eating all the RAM?", f"Why did memory keep growing in the {svc}?")
    add("single-detail", [("b", f"The config variable {old} is now {new}; the old name still "
                                "works but logs a deprecation warning.")],
        f"What is the environment setting formerly called {old} named now?",
        "Which env var replaced the old one we renamed?")
    add("single-detail", [("a", f"Our {w['cloud']} invoice jumped to ${n * 37 + 900} last "
                                "month, mostly egress.")],
        "How much did hosting cost us recently?",
        "What drove the increase in the infrastructure spend?")
    # temporal
    add("temporal", [("a", f"Finally moved the {svc2} onto {lang} {lver}, it took all day.")],
        f"When did we upgrade the runtime of the {svc2}?",
        "When did that language version migration happen?")
    add("temporal", [("a", f"The {svc} was down this morning — DNS again, of course.")],
        "When was the name-resolution outage?", f"When did the {svc} last go offline?")
    add("temporal", [("b", f"Merged the PR that adds rate limiting to the {svc2}.")],
        f"When was throttling added to the {svc2}?",
        "When did request limits land?")
    add("temporal", [("a", f"Back from {w['conf']} in {w['city']}! The talk on {w['topic']} "
                           "was the best one.")],
        f"When did {a} get back from the conference?",
        f"When did {a} return from the trip to {w['city']}?")
    add("temporal", [("a", f"{c} starts with us today, she'll own the {svc2} from now on.")],
        f"When did {c} join the team?", "When did our newest teammate begin?")
    add("temporal", [("b", f"I deleted the feature flag {flag}; it had sat at 100% for a "
                           "month.")],
        f"When was the toggle for {flagdesc} removed?",
        f"When did we clean up the switch guarding {flagdesc}?")
    # multi-turn: the question's answer is in the reply
    add("multi-turn", [("a", "Which port does the metrics exporter listen on after the "
                             "change?"),
                       ("b", f"{9000 + n % 900}, the collector's default.")],
        "What port do the Prometheus metrics use now?",
        "Where should the scraper point to collect telemetry?")
    add("multi-turn", [("a", f"Did you find out why the {svc} deploy failed?"),
                       ("b", "Yes — the image was built for arm64 and the nodes are x86.")],
        f"Why did the {svc} rollout break?",
        "What went wrong with the last release attempt?")
    add("multi-turn", [("a", "What should we call the new cleanup subcommand?"),
                       ("b", f"How about `{w['cmd']}`? It reads well next to the other verbs."),
                       ("a", "Sounds good, go with that.")],
        "What name did we give the command that removes stale data?",
        "Which verb was chosen for the housekeeping CLI action?")
    add("multi-turn", [("a", f"Have you started {c}'s {work} yet?"),
                       ("b", f"Yes! It's {genre}.")],
        f"What kind of {work} did {c} make?", f"What is {c}'s {work} about?")
    add("multi-turn", [("b", "Should I squash the commits before merging?"),
                       ("a", "No, keep them, the history helps when bisecting.")],
        "Do we preserve individual commits when a branch lands?",
        "What is our policy on flattening history at merge time?")
    add("multi-turn", [("a", "How big is the production database these days?"),
                       ("b", f"About {n * 3 + 40} GB, growing roughly 3 GB a week.")],
        "How large has prod data become?", "What size is the live store now?")
    # inference
    add("inference", [("a", f"Heads up: I'm off Thursday through Monday, my sister's wedding "
                            f"in {w['city2']}.")],
        f"Will {a} be reachable at the end of this week?",
        f"Can we count on {a} for a Friday review?")
    add("inference", [("a", "I've had a peanut allergy since I was a kid, so skip the satay "
                            "place.")],
        f"Is there food {a} must avoid?", f"What should we keep in mind when ordering lunch "
                                          f"for {a}?")
    add("inference", [("a", "My laptop only has 8 GB, running the whole stack locally is "
                            "painful.")],
        f"Could {a} comfortably run every container on their own machine?",
        f"Is {a}'s computer powerful enough for a full local environment?")
    add("inference", [("b", f"The suite takes {n % 20 + 15} minutes on CI but forty seconds "
                            "here, thanks to the warm cache.")],
        "Are pipeline runs slower than local ones?",
        "Why would a change feel quick to check locally but slow in the build server?")
    add("inference", [("a", f"I moved to {w['city3']} last month; I'm seven hours ahead of "
                            "everyone now.")],
        f"Does {a} share a time zone with the rest of the team?",
        f"Would a late-afternoon meeting suit {a}?")
    add("inference", [("a", f"The customer demo is on {w['day2']}, so nothing risky gets "
                            "merged before that.")],
        "Is it wise to land a big refactor just before the client presentation?",
        "Can I push my large rewrite this week?")
    add("inference", [("a", "I'm training for a marathon, so I'm out running every morning "
                            "until nine.")],
        f"Why might {a} not answer early messages?",
        f"Is {a} likely online at 8 am?")
    return F


FILLER = [
    ("a", "Can you run the {svc} tests again?"), ("b", "Running them now."),
    ("b", "All green, {n} passed, 2 skipped."), ("a", "Looking at the logs for the {svc2}."),
    ("a", "I'll open a ticket for that so we don't forget."), ("b", "Let's revisit after lunch."),
    ("a", "Did the build for {lib0} finish?"), ("b", "Pushed a fix to {branch}."),
    ("a", "The {db} migration script still needs a review."),
    ("a", "Morning! Coffee first, then standup."), ("b", "I left a few comments on the diff."),
    ("b", "The docs for {lib0} are out of date again."), ("a", "Thanks, that helps."),
    ("b", "Do you want me to write a test for that edge case?"), ("a", "Yes please."),
    ("a", "The {svc} dashboard looks calm today."), ("b", "Timeout errors are down this week."),
    ("a", "We should talk about the travel budget at some point."),
    ("b", "I can take the {svc2} ticket if nobody else wants it."),
    ("a", "Ugh, the VPN dropped again."), ("b", "Rebased onto main, no conflicts."),
    ("a", "Can you summarise what changed in the {svc}?"),
    ("b", "Three files: the handler, its test and the changelog."),
    ("a", "Let's keep the scope small for this one."),
    ("b", "I added type hints to the {svc2} module while I was there."),
    ("a", "Any idea why the linter is complaining?"),
    ("b", "An unused import in the {svc} tests, fixed."),
    ("a", "Who reviewed the last {db} change?"), ("b", "{c} did, on Monday."),
    ("a", "I'll be in meetings until three."), ("b", "Noted, I'll keep going on the refactor."),
    ("a", "The release notes need a line about the {svc2}."),
    ("b", "Drafted them, have a look when you can."),
    ("a", "Did anyone else see the alert about disk usage?"),
    ("b", "It was the log volume, I rotated it."),
    ("a", "Good catch."), ("b", "Should the {svc} return 404 or 410 for deleted items?"),
    ("a", "410, it's gone for good."), ("a", "Pair on it tomorrow?"), ("b", "Sure, 10 am works."),
    ("a", "The weather here is miserable, rain all week."),
    ("b", "I profiled the {svc2}; most of the time goes to JSON encoding."),
    ("a", "Let's not optimise that yet."), ("a", "Is the {db} backup job still running nightly?"),
    ("b", "Yes, and the restore drill passed last month."),
    ("a", "Can you bump the version number?"), ("b", "Done, tagged and pushed."),
    ("a", "I'm going to grab lunch, back in 30."),
    ("b", "I split the {svc} handler into two functions, it was getting long."),
    ("a", "Nice, much easier to read."),
    ("a", "We need a runbook for the {svc2} before the holidays."),
    ("b", "I'll start one in the wiki."), ("a", "What's the status of the {branch} branch?"),
    ("b", "Waiting on CI."), ("a", "The conference call quality was terrible today."),
    ("b", "Want me to add a metric for queue depth on the {svc}?"),
    ("a", "Yes, and an alert if it stays high for ten minutes."),
    ("a", "Let's document the decision in the ADR folder."),
    ("b", "Written up as ADR {n}."), ("a", "Did {c} reply about the contract renewal?"),
    ("b", "Not yet, I'll ping again."), ("a", "Friday deploys are still banned, right?"),
    ("b", "Right, unless it's a hotfix."), ("a", "I finally fixed my home office chair."),
    ("b", "The {lib0} changelog mentions a security fix, worth upgrading soon."),
    ("a", "Put it on the list for next sprint."),
]


def world(i: int, r: random.Random) -> dict:
    return {
        "svc": r.choice(SERVICES), "svc2": r.choice(SERVICES), "db": r.choice(DBS),
        "lib": r.choice(LIBS), "lib0": r.choice(LIBS)[0], "host": r.choice(HOSTS),
        "test": r.choice(TESTS), "pet": r.choice(PETS), "c": r.choice(PEOPLE),
        "city": r.choice(CITIES), "city2": r.choice(CITIES), "city3": r.choice(CITIES),
        "conf": r.choice(CONFS), "topic": r.choice(TOPICS), "lang": r.choice(LANGS),
        "cloud": r.choice(CLOUDS), "day": r.choice(DAYS), "day2": r.choice(DAYS),
        "flag": r.choice(FLAGS), "cmd": r.choice(CMDS), "branch": r.choice(BRANCHES),
        "genre": r.choice(GENRES), "var": r.choice(VARS), "n": r.randint(11, 97),
    }


DIALOGUES = [  # (developer or first colleague, agent or second colleague)
    ("Maya", "agent"), ("Jonas", "Priyanka"), ("Leila", "agent"), ("Ben", "Sofia"),
    ("Hiro", "agent"), ("Ana", "Marcus"), ("Yusuf", "agent"), ("Greta", "Olu"),
]


def build(i: int) -> tuple[list[dict], list[dict]]:
    r = random.Random(4000 + i)
    a_name, b_name = DIALOGUES[i]
    w = world(i, r)
    while w["svc2"] == w["svc"]:
        w["svc2"] = r.choice(SERVICES)
    while w["c"] in (a_name, b_name):
        w["c"] = r.choice(PEOPLE)
    w["a_name"] = a_name
    chosen = r.sample(facts(w, r), FACTS)
    per_session: list[list[dict]] = [[] for _ in range(SESSIONS)]
    for j, f in enumerate(chosen):
        per_session[j % SESSIONS].append(f)
    did = f"d{i + 1:02d}"
    start = datetime(2026, 3, 2, 9, 0) + timedelta(days=11 * i)
    turns: list[dict] = []
    questions: list[dict] = []
    who = {"a": a_name, "b": b_name}
    for s in range(SESSIONS):
        t = start + timedelta(days=4 * s, hours=r.randint(0, 6))
        slots = TURNS - sum(len(f["turns"]) for f in per_session[s])
        blocks: list[tuple[dict | None, list[tuple[str, str]]]] = [
            (None, [line]) for line in r.sample(FILLER, slots)]
        for f in per_session[s]:
            blocks.insert(r.randint(1, len(blocks)), (f, f["turns"]))
        n = 0
        for f, lines in blocks:
            ids = []
            for role, text in lines:
                n += 1
                tid = f"{did}-s{s + 1}-t{n:02d}"
                t += timedelta(minutes=r.randint(1, 4))
                body = text.format(**w) if f is None else text
                turns.append({"id": tid, "speaker": who[role], "text": body,
                              "time": t.strftime("%Y-%m-%dT%H:%M:00Z"),
                              "session": f"{did}-s{s + 1}"})
                ids.append(tid)
            if f is not None:
                questions.append({"dialogue": did, "question": f["question"],
                                  "evidence": ids, "category": f["category"],
                                  "split": "tune" if i < 4 else "heldout"})
    for k, q in enumerate(questions, 1):
        q["id"] = f"{did}-q{k:02d}"
    return turns, questions


_WORD = re.compile(r"\w+")

NULL = [
    # random tokens
    "zq7f3a9e1c0b", "x9k2vq8wz", "b4e1f09d7c3a2e", "qwxz jjkv", "7d1e0c9fa4b2", "kzvq2", "pfft9xq",
    "0xdeadf00dcafe91", "vbnxz qrtw", "ttqz-8841-kkq", "mmzxq", "a1b2c3d4e5f6g7", "qqjx vvz",
    "zzxv09", "kqjw",
    # invented words
    "florbinate the quexil", "how do I snarfle a drimbly", "grompish ulvenctor",
    "what is a blorptastic wiggenfrump", "frabjous skrimblet", "zentarious mobbling",
    "the quibbleflax", "plonkish vermatude", "trindle snorkwhistle",
    "glimberwock fanture", "yibbering oxtumble", "spraxinated dobbles",
    "wumbolic crantification",
    # off-topic questions
    "boiling tungsten", "sourdough starter", "giraffe gestation",
    "origami crane", "volcanic eruption Krakatoa", "Sicilian chess gambit",
    "penguin Antarctica", "saxophone reed thickness", "knitting mittens",
    "photosynthesis chlorophyll wavelength", "tango dancers", "medieval tapestry weaving",
]


def vocabulary(turns: list[dict]) -> set[str]:
    words = {w.lower() for t in turns for w in _WORD.findall(t["text"] + " " + t["speaker"])}
    for page in DOCS.rglob("*.md"):
        words |= {w.lower() for w in _WORD.findall(page.stem + " " + page.read_text("utf-8"))}
    return words


def main() -> None:
    all_turns, all_q = [], []
    for i in range(len(DIALOGUES)):
        turns, questions = build(i)
        path = HERE / f"d{i + 1:02d}.jsonl"
        path.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
        all_turns += turns
        all_q += questions
    (HERE / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in all_q),
                                          encoding="utf-8")
    vocab = vocabulary(all_turns)
    stop = {"the", "of", "how", "do", "i", "a", "what", "is"}
    for q in NULL:
        shared = {w.lower() for w in _WORD.findall(q)} & vocab - stop
        assert not shared, (q, shared)
    assert len(NULL) == 40, len(NULL)
    (HERE / "null.jsonl").write_text(
        "".join(json.dumps({"id": f"n{k:02d}", "question": q}) + "\n"
                for k, q in enumerate(NULL, 1)), encoding="utf-8")
    print(f"{len(all_turns)} turns, {len(all_q)} questions, {len(NULL)} null queries")


if __name__ == "__main__":
    main()
