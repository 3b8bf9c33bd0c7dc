"""The deterministic synthetic workload every section measures.

Node ``i`` (0 <= i < n) is a pure function of ``(seed, i)``: its kind, scope, key, title,
body (about 300 bytes of Zipf-distributed words from a 5,000-word vocabulary, with
``[[links]]`` to other keyed nodes), data and how many versions it has. Nothing about the
graph is held in memory except a ring of the last ``window`` entity ids plus ``hubs`` hub
ids, because the typed edges of node ``i`` go to a node among the previous ``window`` or to
one of the first ``hubs`` nodes (a small-world graph: everything is a few hops from a hub).
So the import streams, and its peak memory measures the importer, not the harness.

Keyed nodes (``keyed_share``) have keys ``n000123``; a share of them (``chain_share``) are
written again 1-3 more times (3 versions on average), and the first ``long_chains`` nodes get
exactly 10 versions (the history figure).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SCOPES = (
    "global",
    "global",
    "repo:6f1c2b9e-3d4a-4e5f-8a7b-9c0d1e2f3a4b",
    "repo:0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
    "board:planning",
)
KINDS = ("task", "decision", "page", "review", "business-rule", "codebase-map")
RELS = ("depends-on", "about", "implements", "relates-to", "blocks")
VOCAB_SIZE = 5000
ZIPF_S = 1.07
BODY_BYTES = 300
LONG_CHAIN_VERSIONS = 10


def _mix(seed: int, i: int, salt: int) -> float:
    """A stable uniform [0, 1) value for (seed, i, salt) without an RNG object."""
    x = (i * 0x9E3779B1 + seed * 0x85EBCA77 + salt * 0xC2B2AE3D) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x45D9F3B) & 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x45D9F3B) & 0xFFFFFFFF
    x ^= x >> 16
    return x / 2**32


def _vocabulary(seed: int) -> list[str]:
    rng = random.Random(seed)
    onsets = ["b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "st",
              "tr", "pl", "gr", "sh", "ch", "br"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou"]
    codas = ["", "", "n", "r", "s", "t", "l", "x", "ck", "nd"]
    words: dict[str, None] = {}
    while len(words) < VOCAB_SIZE:
        syll = rng.choice((1, 2, 2, 3, 3, 4))
        w = "".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                    for _ in range(syll))
        words.setdefault(w, None)
    return list(words)


@dataclass(frozen=True, slots=True)
class Spec:
    n: int
    seed: int = 20260601
    keyed_share: float = 0.6
    chain_share: float = 0.25  # of keyed nodes; they get 2-4 versions (3 on average)
    long_chains: int = 5
    edges_per_node: int = 5
    links_per_body: float = 1.5
    window: int = 2000
    hubs: int = 100
    hub_share: float = 0.2


@dataclass(frozen=True, slots=True)
class NodeSpec:
    i: int
    kind: str
    scope: str
    key: str | None
    title: str
    body: str
    data: dict[str, Any]


class Workload:
    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.vocab = _vocabulary(spec.seed)
        weights = [1.0 / (r + 1) ** ZIPF_S for r in range(VOCAB_SIZE)]
        self.cum = list(itertools.accumulate(weights))

    # --- per-node facts (pure functions of i) --------------------------------------------
    def keyed(self, i: int) -> bool:
        return i < self.spec.long_chains or _mix(self.spec.seed, i, 1) < self.spec.keyed_share

    def versions(self, i: int) -> int:
        if i < self.spec.long_chains:
            return LONG_CHAIN_VERSIONS
        if not self.keyed(i) or _mix(self.spec.seed, i, 2) >= self.spec.chain_share:
            return 1
        return 2 + int(_mix(self.spec.seed, i, 3) * 3)  # 2, 3 or 4

    def scope(self, i: int) -> str:
        if i < self.spec.long_chains:
            return "global"
        return SCOPES[int(_mix(self.spec.seed, i, 4) * len(SCOPES))]

    def kind(self, i: int) -> str:
        return KINDS[int(_mix(self.spec.seed, i, 5) * len(KINDS))]

    def key(self, i: int) -> str | None:
        return f"n{i:07d}" if self.keyed(i) else None

    def words(self, rng: random.Random, k: int) -> list[str]:
        total = self.cum[-1]
        return [self.vocab[bisect.bisect_left(self.cum, rng.random() * total)] for _ in range(k)]

    def node(self, i: int, version: int = 1) -> NodeSpec:
        rng = random.Random(self.spec.seed * 1_000_003 + i)
        title = " ".join(self.words(rng, 3 + rng.randrange(4))).capitalize()
        key = self.key(i)
        parts: list[str] = [f"# {title}", ""]
        n_links = int(self.spec.links_per_body) + (
            1 if rng.random() < self.spec.links_per_body % 1 else 0)
        links = [self._link_target(rng, i) for _ in range(n_links)]
        size = 0
        line: list[str] = []
        while size < BODY_BYTES:
            w = self.words(rng, 1)[0]
            if links and rng.random() < 0.05:
                t = links.pop()
                if t is not None:
                    w = f"[[{t}]]"
            line.append(w)
            size += len(w) + 1
            if len(line) >= 12:
                parts.append(" ".join(line) + ".")
                line = []
        for t in links:
            if t is not None:
                line.append(f"see [[{t}]]")
        if line:
            parts.append(" ".join(line) + ".")
        if version > 1:
            vr = random.Random(self.spec.seed * 7919 + i * 31 + version)
            parts.append(f"Revision {version}: " + " ".join(self.words(vr, 8)) + ".")
        body = "\n".join(parts)
        data = {"n": i, "v": version, "prio": int(_mix(self.spec.seed, i, 6) * 5)}
        return NodeSpec(i, self.kind(i), self.scope(i), key, title, body, data)

    def _link_target(self, rng: random.Random, i: int) -> str | None:
        if rng.random() < 0.1:
            j = i + 1 + rng.randrange(self.spec.window)  # forward: dangling until written
            if j >= self.spec.n:
                return None
        else:
            lo = max(0, i - self.spec.window)
            if lo >= i:
                return None
            j = lo + rng.randrange(i - lo)
        return self.key(j) if self.keyed(j) else None

    def edge_targets(self, i: int) -> list[tuple[str, int]]:
        """(rel, j) typed edges from node i to earlier nodes (no duplicates)."""
        if i == 0:
            return []
        rng = random.Random(self.spec.seed * 15_485_863 + i)
        out: dict[tuple[str, int], None] = {}
        for _ in range(self.spec.edges_per_node):
            rel = RELS[rng.randrange(len(RELS))]
            if rng.random() < self.spec.hub_share:
                j = rng.randrange(min(self.spec.hubs, i))
            else:
                lo = max(0, i - self.spec.window)
                j = lo + rng.randrange(i - lo)
            out.setdefault((rel, j), None)
        return list(out)

    # --- streams ------------------------------------------------------------------------
    def base_batches(self, batch: int) -> Iterator[list[NodeSpec]]:
        for start in range(0, self.spec.n, batch):
            yield [self.node(i) for i in range(start, min(start + batch, self.spec.n))]

    def version_batches(self, batch: int) -> Iterator[list[NodeSpec]]:
        """Later versions: pass v writes version v of every node that has at least v."""
        top = LONG_CHAIN_VERSIONS if self.spec.long_chains else 4
        for v in range(2, top + 1):
            buf: list[NodeSpec] = []
            for i in range(self.spec.n):
                if self.versions(i) >= v:
                    buf.append(self.node(i, v))
                    if len(buf) == batch:
                        yield buf
                        buf = []
            if buf:
                yield buf


class EntityRing:
    """Entity ids of the last ``window`` nodes and of the hubs: O(1) memory in n."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.recent: deque[str] = deque(maxlen=spec.window)
        self.first = 0  # index of recent[0]
        self.hubs: list[str] = []

    def add(self, i: int, entity: str) -> None:
        if len(self.recent) == self.recent.maxlen:
            self.first += 1
        self.recent.append(entity)
        if i < self.spec.hubs:
            self.hubs.append(entity)

    def get(self, j: int) -> str:
        if j < len(self.hubs):
            return self.hubs[j]
        return self.recent[j - self.first]


def search_queries(w: Workload, count: int, seed: int = 7) -> list[str]:
    """1-2 word queries; words drawn from the same Zipf distribution as the bodies."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        out.append(" ".join(w.words(rng, 1 + rng.randrange(2))))
    return out
