"""The MCP server's parts: tools (engine/mcp/tools.py) and JSON conversion (engine/mcp/convert.py)."""
