"""An MCP client for tests/mcp.rs: the official Python SDK's stdio client.

    python3 tests/mcp_client.py BINARY CALLS_JSON

starts `BINARY mcp` in the current folder, initializes, lists the tools and
makes each call of CALLS_JSON (`[[tool, arguments], ...]`) in turn, then
prints one JSON object: the server's name, the tools' names, and for each
call its `isError`, `structuredContent` and text, or the protocol error.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary, calls):
    server = StdioServerParameters(
        command=binary,
        args=["mcp"],
        cwd=os.getcwd(),
        env={"DISTML_OFFLINE": "1", "NO_COLOR": "1"},
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            listed = await session.list_tools()
            answers = []
            for name, arguments in calls:
                try:
                    result = await session.call_tool(name, arguments)
                except MCPError as e:
                    answers.append({"protocol_error": e.error.message})
                    continue
                texts = [c.text for c in result.content if c.type == "text"]
                answers.append(
                    {
                        "is_error": bool(result.is_error),
                        "structured": result.structured_content,
                        "texts": texts,
                    }
                )
    print(
        json.dumps(
            {
                "server": initialized.server_info.name,
                "tools": [tool.name for tool in listed.tools],
                "read_only": [tool.annotations.read_only_hint for tool in listed.tools],
                "answers": answers,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(sys.argv[1], json.loads(sys.argv[2])), 120))
