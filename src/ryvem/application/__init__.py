"""The use cases: the write rules, vault import, copy and the workspace's default scope.

Faces (CLI, MCP, export) and library users call this package; it talks to a store only
through :mod:`ryvem.ports`, and gets one from :mod:`ryvem.backends`.
"""
