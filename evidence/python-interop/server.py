"""A server on the released official Python SDK (`mcp` on PyPI, pinned in
requirements.txt), written the way the SDK's own docs write one: an
`MCPServer` with decorated tools, resources and prompts, run on stdio
(`mcp.run("stdio")`) or Streamable HTTP (`streamable_http_app()` under
uvicorn, bound to loopback).

    python server.py --stdio
    python server.py --http            # prints "listening http://127.0.0.1:PORT/mcp"

Every list is paged two items a page by a `ServerMiddleware` (the SDK's
public middleware seam), since `MCPServer` returns whole lists: the driver
checks that `nextCursor` is sent and followed. The contents are written out
literally in client/examples/interop_py.rs as well.
"""

import socket
import sys
import threading

import mcp_types as types
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

PAGE = 2
PAGED = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


async def paginate(ctx, call_next):
    """Pages every list: the cursor is the decimal offset of the page."""
    result = await call_next(ctx)
    field = PAGED.get(ctx.method)
    if field is None or ctx.request_id is None:
        return result
    params = ctx.params or {}
    cursor = params.get("cursor") if isinstance(params, dict) else None
    start = int(cursor) if cursor else 0
    # The chain's result is the wire form here (camelCase keys).
    items = result[field]
    page = dict(result, **{field: items[start : start + PAGE]})
    if start + PAGE < len(items):
        page["nextCursor"] = str(start + PAGE)
    return page


mcp = MCPServer("snodo-interop-py", version="1.0.0", log_level="WARNING", middleware=[paginate])


@mcp.tool(title="Echo", description="Echoes the message back")
def echo(message: str) -> str:
    return f"echo: {message}"


class Sum(BaseModel):
    sum: float


@mcp.tool(title="Add", description="Adds two numbers")
def add(a: float, b: float) -> Sum:
    return Sum(sum=a + b)


@mcp.tool(description="Always fails")
def fail() -> str:
    raise ToolError("this tool always fails")


class Confirm(BaseModel):
    confirm: bool = Field(description="Go ahead?")


@mcp.tool(description="Deploys after asking for confirmation")
async def deploy(env: str, ctx: Context) -> str:
    message = f"Deploy to {env}?"
    if ctx.protocol_version == "2026-07-28":
        # 2026-07-28: no server-to-client request; the question travels in
        # an InputRequiredResult and the answer in the retried call.
        answers = ctx.input_responses or {}
        answer = answers.get("confirm")
        if answer is None:
            return types.InputRequiredResult(
                input_requests={
                    "confirm": types.ElicitRequest(
                        params=types.ElicitRequestFormParams(
                            message=message,
                            requested_schema=Confirm.model_json_schema(),
                        )
                    )
                }
            )
        confirmed = answer.action == "accept" and bool((answer.content or {}).get("confirm"))
    else:
        result = await ctx.elicit(message, Confirm)
        confirmed = result.action == "accept" and result.data.confirm
    return f"deployed to {env}" if confirmed else "not deployed"


@mcp.tool(description="Counts steps, reporting progress")
async def steps(steps: int, ctx: Context) -> str:
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
    return f"{steps} steps done"


@mcp.resource("docs://readme", name="readme", title="Read me", mime_type="text/plain")
def readme() -> str:
    return "A server on the released Python SDK."


@mcp.resource("docs://changelog", name="changelog", title="Changes", mime_type="text/plain")
def changelog() -> str:
    return "1.0.0: first release."


@mcp.resource("docs://license", name="license", title="Licence", mime_type="text/plain")
def license_() -> str:
    return "MIT"


@mcp.resource("greeting://{name}", name="greeting", mime_type="text/plain")
def greeting(name: str) -> str:
    return f"Hello, {name}!"


@mcp.prompt(name="review-code", title="Code Review")
def review_code(code: str, language: str = "unknown") -> str:
    return f"Please review this {language} code:\n\n{code}"


@mcp.prompt(name="summarize", title="Summarize")
def summarize(text: str) -> str:
    return f"Summarize: {text}"


@mcp.prompt(name="greet", title="Greet")
def greet(name: str) -> str:
    return f"Say hello to {name}."


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "--stdio"
    if mode == "--stdio":
        mcp.run("stdio")
        return
    if mode != "--http":
        sys.exit(f"usage: {sys.argv[0]} --stdio|--http")
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    app = mcp.streamable_http_app(host="127.0.0.1")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)

    def stop_when_stdin_closes() -> None:
        sys.stdin.read()
        server.should_exit = True

    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
