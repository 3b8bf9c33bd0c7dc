"""The Neo4j adapter: the same port on a Neo4j 5 server."""

from ryvem.adapters.neo4j.repository import Neo4jRepository

__all__ = ["Neo4jRepository"]
