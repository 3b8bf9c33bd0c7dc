"""A redacted version's links, read again later (both backends through the service)."""

from __future__ import annotations

from ryvem.application.service import Service
from ryvem.domain.traversal import discovered_refs


def linked(service: Service, ref: str) -> list[str]:
    start = service.get(ref).entity
    return sorted(discovered_refs(start, service.traverse(ref, depth=1)))


def test_links_read_again_after_a_redaction_keep_an_alias_link_and_never_link_the_marker(
    service: Service,
) -> None:
    """A sweep redacted "SECRETXYZ" from "[[Other|alias SECRETXYZ]] and [[SECRETXYZ]] and
    [[Missing]]": the stored targets were right, but once a page "missing" appeared the
    links were read again from the body, where "[[[redacted]]]" links a page "redacted" and
    "[[Other|alias [redacted]]]" is no link. Read past the markers, they stay right."""
    service.write("note", "A", key="a",
                  body="see [[Other|alias SECRETXYZ]] and [[SECRETXYZ]] and [[Missing]]")
    service.write("note", "Other", key="other", body="o")
    service.redact("SECRETXYZ")
    assert linked(service, "note/a") == ["other"]
    service.write("note", "R", key="redacted", body="r")
    service.write("note", "M", key="missing", body="m")
    assert linked(service, "note/a") == ["missing", "other"]
    assert service.unresolved("note/a") == []
