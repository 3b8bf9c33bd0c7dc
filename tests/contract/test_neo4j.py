"""The contract suite on Neo4j: the session's server (see tests/conftest.py), emptied per store.

Skipped with a reason when no server is configured; required under CI=true.
"""

from __future__ import annotations

from backends import Neo4jServer, connect_neo4j, open_empty_neo4j
from ryvem.ports import GraphRepository

from . import ProjectContract


class TestNeo4jContract(ProjectContract):
    def server(self) -> Neo4jServer:
        server: Neo4jServer = self.request.getfixturevalue("neo4j_server")
        return server

    def make_repository(self) -> GraphRepository:
        return open_empty_neo4j(self.server())

    def open_another(self) -> GraphRepository:
        return connect_neo4j(self.server())
