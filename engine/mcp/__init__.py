"""The MCP server's parts: the tools, JSON conversion of records, and the HTTP transport."""
