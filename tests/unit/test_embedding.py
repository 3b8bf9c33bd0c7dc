"""The local embedder: the real model on this CPU, unit vectors, chunking, and no network.

These need the ``semantic`` extra, which ``make install`` (the ``dev`` extra) brings; under
``CI=true`` a missing extra fails instead of skipping.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ryvem.embedding import Embedder, load_default, probe

REASON = probe()
if REASON is not None:
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"the semantic extra must be installed in CI: {REASON}")
    pytest.skip(REASON, allow_module_level=True)


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    e = load_default()
    assert e is not None
    return e


def test_the_default_embedder_is_minilm_with_384_dimensions(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2-int8-xenova", 384)


def test_vectors_are_float32_unit_rows_in_input_order(embedder: Embedder) -> None:
    texts = ["Keep sessions in signed cookies", "where are user sessions kept", "x"]
    v = embedder.embed(texts)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    again = embedder.embed(list(reversed(texts)))  # batching by length keeps input order
    assert np.allclose(again[::-1], v, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_a_paraphrase_is_nearer_than_an_unrelated_sentence(embedder: Embedder) -> None:
    """Real semantics: the question sits nearer the note that answers it than elsewhere."""
    q, answer, other = embedder.embed([
        "what makes checkout retry safe",
        "Checkout is idempotent, so retries are safe",
        "The server was rewritten in Rust",
    ])
    assert float(q @ answer) > float(q @ other) + 0.3


def test_chunks_cover_the_head_of_a_long_text_in_overlapping_windows_of_the_model(
    embedder: Embedder,
) -> None:
    """A long text is cut at token boundaries into its first HEAD windows of WINDOW tokens
    (specials included), consecutive windows overlapping; the rest is left to lexical search."""
    from tokenizers import Tokenizer

    from ryvem.embedding.minilm import HEAD, WINDOW, tokenizer_file

    text = " ".join(f"word{i} is followed by more words" for i in range(400))
    pieces = embedder.chunk(text)
    assert len(pieces) == HEAD
    assert text.startswith(pieces[0]) and not text.endswith(pieces[-1])
    tok = Tokenizer.from_file(str(tokenizer_file()))
    tok.no_truncation()
    for piece in pieces:
        assert len(tok.encode(piece).ids) <= WINDOW  # specials included
    for a, b in itertools.pairwise(pieces):
        assert a[-20:] in b  # consecutive windows overlap
    assert embedder.chunk("short text") == ["short text"]
    assert embedder.chunk("  \n ") == []


def test_every_window_of_a_long_text_when_the_head_is_not_limited() -> None:
    from ryvem.embedding.minilm import MiniLM

    text = " ".join(f"word{i} is followed by more words" for i in range(400))
    pieces = MiniLM(head=0).chunk(text)
    assert len(pieces) > 10
    assert text.startswith(pieces[0]) and text.endswith(pieces[-1])
    assert MiniLM(head=0).chunk(text)[:3] == MiniLM().chunk(text)


def test_a_text_gets_the_same_vector_whatever_it_is_embedded_with(embedder: Embedder) -> None:
    """Texts are sorted by length and packed into runs (padding to the run's longest): a
    vector must not depend on its neighbours in the call."""
    texts = ["x", "Keep sessions in signed cookies", "word " * 40, "a longer note " * 30,
             "tokens " * 300, "two words"]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert float(np.min(np.sum(together * alone, axis=1))) >= 0.9999


def test_loading_and_embedding_open_no_socket() -> None:
    """In a fresh interpreter whose audit hook refuses every socket operation, the model
    loads and embeds (so nothing on that path reaches for the network)."""
    code = textwrap.dedent("""
        import sys
        seen = []
        def hook(event, args):
            if event.startswith("socket."):
                seen.append(event)
                raise RuntimeError(f"network use: {event}")
        sys.addaudithook(hook)
        import socket
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=1)
        except RuntimeError:
            pass
        assert seen, "the audit hook did not see a socket attempt"
        seen.clear()
        from ryvem.embedding import load_default
        e = load_default()
        v = e.embed(["no network here", "none at all"])
        assert v.shape == (2, 384), v.shape
        e.chunk("a text " * 300)
        assert not seen, seen
        print("ok")
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_probe_names_the_missing_package_in_one_line() -> None:
    code = textwrap.dedent("""
        import sys
        sys.modules["onnxruntime"] = None  # as if the extra were not installed
        import importlib.util
        real = importlib.util.find_spec
        importlib.util.find_spec = lambda n, *a: None if n == "onnxruntime" else real(n, *a)
        from ryvem.embedding import load_default, probe
        reason = probe()
        assert load_default() is None
        print(reason)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert "\n" not in line and "onnxruntime" in line and "ryvem[semantic]" in line
