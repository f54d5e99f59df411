"""The server as the MCP Python SDK's stdio client sees it (test/wire/pythonClient.e2e.test.ts runs this).

argv: a JSON object {"command", "args", "cwd", "env"?, "calls": [call, ...]}. A
call is the tool's arguments, or {"call": arguments, "read_timeout_seconds"?,
"progress"?: true} to give up on it after that long (the SDK then sends
notifications/cancelled) or to ask for progress notifications.
Prints one JSON object: the negotiated protocol version, the tool listing and
each call's result, as the SDK parsed them (its own validation included); a
call given with options answers {"result"?, "error"?, "progress"?, "seconds"}.
"""
import asyncio
import json
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def call_with_options(session, call):
    heard = []

    async def on_progress(progress, total, message):
        heard.append({"progress": progress, "total": total, "message": message})

    out = {}
    started = time.monotonic()
    try:
        result = await session.call_tool(
            "execute_capture_plan",
            call["call"],
            read_timeout_seconds=call.get("read_timeout_seconds"),
            progress_callback=on_progress if call.get("progress") else None,
        )
        out["result"] = dump(result)
    except Exception as err:  # the SDK's timeout: it has sent notifications/cancelled
        out["error"] = f"{type(err).__name__}: {err}"
    out["seconds"] = time.monotonic() - started
    if call.get("progress"):
        out["progress"] = heard
    return out


async def main(spec):
    params = StdioServerParameters(command=spec["command"], args=spec["args"], cwd=spec["cwd"], env=spec.get("env"))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            tools = await session.list_tools()
            calls = []
            for call in spec["calls"]:
                if "call" in call:
                    calls.append(await call_with_options(session, call))
                else:
                    calls.append(dump(await session.call_tool("execute_capture_plan", call)))
    print(json.dumps({"initialize": dump(initialized), "tools": dump(tools), "calls": calls}))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
