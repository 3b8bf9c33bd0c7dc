"""Opening test stores of each backend, and emptying a Neo4j server between tests.

Test-only: the production adapters carry no "delete everything" verb; ``wipe_neo4j`` runs
that Cypher itself over the repository's own driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from neo4j import RoutingControl

from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.sqlite import SqliteRepository

# Every node and relationship goes; the schema (constraints, indexes) stays.
WIPE_CYPHER = "MATCH (n) DETACH DELETE n"


@dataclass(frozen=True)
class Neo4jServer:
    uri: str
    user: str
    password: str


def open_sqlite(folder: Path) -> SqliteRepository:
    """The SQLite store ``folder/ryvem.db`` (created empty when missing)."""
    return SqliteRepository.open(folder / "ryvem.db")


def connect_neo4j(server: Neo4jServer) -> Neo4jRepository:
    """A new handle (its own driver) on the server's default database, as it is."""
    return Neo4jRepository.connect(server.uri, server.user, server.password, None)


def wipe_neo4j(repo: Neo4jRepository) -> None:
    """Delete every node and edge of the repository's database (the schema stays)."""
    repo._driver.execute_query(
        WIPE_CYPHER, database_=repo._database, routing_=RoutingControl.WRITE
    )


def open_empty_neo4j(server: Neo4jServer) -> Neo4jRepository:
    """A handle on the server, emptied first: each test starts from nothing."""
    repo = connect_neo4j(server)
    try:
        wipe_neo4j(repo)
    except BaseException:
        repo.close()
        raise
    return repo
