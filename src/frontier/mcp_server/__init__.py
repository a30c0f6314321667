"""The MCP server: the KB's tools and pages for agents, over stdio or streamable HTTP."""
