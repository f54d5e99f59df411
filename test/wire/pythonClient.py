"""The server as the MCP Python SDK's stdio client sees it (test/wire/pythonClient.e2e.test.ts runs this).

argv: a JSON object {"command", "args", "cwd", "calls": [tool arguments, ...]}.
Prints one JSON object: the negotiated protocol version, the tool listing and
each call's result, as the SDK parsed them (its own validation included).
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main(spec):
    params = StdioServerParameters(command=spec["command"], args=spec["args"], cwd=spec["cwd"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            tools = await session.list_tools()
            calls = [dump(await session.call_tool("execute_capture_plan", arguments)) for arguments in spec["calls"]]
    print(json.dumps({"initialize": dump(initialized), "tools": dump(tools), "calls": calls}))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
