"""``ryvem-mcp``: the memory graph as MCP tools for coding agents (see ``server``)."""
