"""The adapters behind :mod:`ryvem.ports`: one package per backend, queries beside it.

Nothing imports an adapter but the composition root (:mod:`ryvem.backends`), which imports
the chosen one lazily, and the adapter's own tests.
"""
