"""How the silence floor was chosen (issue 40, item 5): ``python eval/silence.py``.

A hybrid search whose words no memory holds keeps a semantic hit only at cosine
``ryvem.application.search.SILENCE_FLOOR`` or more. This script measures the floor's two
sides on the conversational stores (turn and session granularity, ``eval/conversation.py``):

* **calibration queries**: 200 made here, seeded — 100 of random hex tokens, 100 of invented
  words (consonant-vowel syllables) — none of them the evaluation's 40 null queries
  (``eval/conversations/null.jsonl``), which are only ever *scored*; each is asked over
  every scope, and the figure is its best cosine;
* **the cost**: the questions of the *tune* split whose words match nothing in their
  dialogue (the lexical leg is empty, so the floor decides), with their best cosine and
  whether the evidence is among the hits the floor keeps.

It prints the calibration maximum and 99th percentile, and for each floor from 0.30 to 0.60
how many calibration queries would return anything and how many tune questions keep their
evidence. Never run it on ``heldout``.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import conversation  # noqa: E402 (the eval's own module, beside this one)


def calibration_queries(seed: int = 40) -> list[str]:
    rng = random.Random(seed)
    hexes = [" ".join(f"{rng.getrandbits(40):010x}" for _ in range(rng.randint(1, 3)))
             for _ in range(100)]
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words = [" ".join("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
                      for _ in range(rng.randint(1, 4))) for _ in range(100)]
    null = set(conversation.null_queries())
    return [q for q in hexes + words if q not in null]


def main() -> int:
    from run import CachedEmbedder  # type: ignore[import-not-found]

    from ryvem.application.search import STRATEGIES
    from ryvem.embedding import load_default

    embedder = CachedEmbedder(load_default())
    semantic = STRATEGIES["semantic"]
    calib = calibration_queries()
    tune = [q for q in conversation.questions() if q["split"] == "tune"]
    with tempfile.TemporaryDirectory(prefix="ryvem-silence-") as tmp:
        for gran in ("turn", "session"):
            store = conversation.ConvStore(Path(tmp), gran, embedder)
            session = store.session
            assert session is not None

            def best(text: str, dialogue: str | None) -> list[tuple[str, float]]:
                scope = conversation.scope_of(dialogue) if dialogue else None
                res = session.search(text, mode=semantic.name, scope=scope,
                                     all_scopes=dialogue is None, limit=10)
                return [(store.label.get(h.id, ""), h.score) for h in res.hits]

            cal = sorted((max((s for _, s in best(q, None)), default=0.0) for q in calib))
            print(f"{gran}: {len(cal)} calibration queries, best cosine max {cal[-1]:.3f}, "
                  f"p99 {cal[int(0.99 * (len(cal) - 1))]:.3f}")
            silent: list[tuple[float, bool]] = []
            for q in tune:
                scope = conversation.scope_of(q["dialogue"])
                if store.service.search(q["question"], scope=scope, limit=1):
                    continue  # words matched: the floor does not decide
                hits = best(q["question"], q["dialogue"])
                want = conversation._wanted(q, gran)
                top = max((s for _, s in hits), default=0.0)
                kept_evidence = any(lab in want for lab, s in hits[:5])
                silent.append((top, kept_evidence))
            print(f"{gran}: {len(silent)} of {len(tune)} tune questions match no word in "
                  "their dialogue")
            for floor in (0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60):
                loud = sum(1 for c in cal if c >= floor)
                kept = sum(1 for top, ev in silent if ev and top >= floor)
                found = sum(1 for _, ev in silent if ev)
                print(f"  floor {floor:.2f}: calibration queries answered {loud}/{len(cal)}; "
                      f"tune questions keeping their evidence {kept}/{found}")
            store.repo.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
