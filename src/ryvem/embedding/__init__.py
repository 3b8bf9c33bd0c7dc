"""Text embeddings computed on this machine, from files that ``pip install`` brought.

Nothing here ever downloads: the default model is all-MiniLM-L6-v2 as an int8 ONNX file
(Xenova's export, Apache-2.0) vendored in ``data/`` with its WordPiece tokenizer (Apache-2.0),
run by ``onnxruntime`` and read by ``tokenizers``. Those two and numpy come with
the ``semantic`` extra (``pip install 'ryvem[semantic]'``); without it :func:`load_default`
returns None and :func:`probe` says why in one line, so callers fall back to lexical search
(``RYVEM_EMBEDDING=off`` does the same on purpose).

This is an adapter-side module (it imports numpy and native runtimes); the domain never
imports it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ryvem.config import EMBEDDING_OFF, EMBEDDING_ON, embedding_from_env, embedding_wanted

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "EMBEDDING_OFF", "EMBEDDING_ON", "RUNTIME_MODULES", "Embedder", "embedding_wanted",
    "load_default", "probe",
]

RUNTIME_MODULES = ("numpy", "onnxruntime", "tokenizers")
"""What the model needs at run time (the extra ``ryvem[semantic]``)."""
_NEEDED = RUNTIME_MODULES


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors; cosine similarity is a dot product."""

    @property
    def name(self) -> str:
        """Identifies the vector space: vectors from two names are never compared."""
        ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One L2-normalised row per text (shape ``(len(texts), dim)``); long texts are cut
        at the model's window, so index :meth:`chunk` pieces of long bodies instead."""
        ...

    def chunk(self, text: str) -> list[str]:
        """``text`` cut at token boundaries into overlapping pieces that each fit the model's
        window (one piece for a short text, none for an empty one)."""
        ...


def probe() -> str | None:
    """None when the default embedder can load, else a one-line reason it cannot.

    ``RYVEM_EMBEDDING=off`` in the environment turns it off (search is then lexical), for a
    machine where embedding is too slow or a run that must not load the model.
    """
    if not embedding_from_env():
        return "semantic search is off: RYVEM_EMBEDDING=off"
    missing = [m for m in _NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        return (
            f"semantic search is off: {', '.join(missing)} not installed "
            "(pip install 'ryvem[semantic]')"
        )
    from ryvem.embedding.minilm import model_file, tokenizer_file

    for path in (model_file(), tokenizer_file()):
        if not path.is_file():
            return f"semantic search is off: {path} is missing (reinstall 'ryvem[semantic]')"
    return None


def load_default() -> Embedder | None:
    """The default local embedder, or None when :func:`probe` gives a reason."""
    if probe() is not None:
        return None
    from ryvem.embedding.minilm import MiniLM

    return MiniLM()
