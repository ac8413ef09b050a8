"""Derive client/src/async_session.rs from client/src/session.rs (blocking).
The blocking file stays the source of truth for the session's steps; this
awaits the same calls. Run from the repository root."""
import re, sys
src = open('client/src/session.rs').read()
# The header (module docs, imports, the async trait) is kept from the
# current async file: everything before its `/// A connected client.`.
current = open('client/src/async_session.rs').read()
src_header = current[:current.index("/// A connected client.")]
IO = ["connect","close","request","request_with","start","resume","await_task","call_tool","list_tools",
      "list_all","flush","finish","run","run_inner","send","send_tapped","listen","receive","follow_task"]

# 1. keep from `pub struct Session` to the end of its impl block (before `/// How a`)
start = src.index("/// A connected client.")
end = src.index("/// How a [`Session::listen`] ended.")
body = src[start:end]

def add_awaits(text):
    out = []; i = 0
    pat = re.compile(r"(self\.(?:transport\.)?(%s)|session\.(%s)|crate::session::Session::(?:connect))\(" % ("|".join(IO), "|".join(IO)))
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:]); break
        # find matching paren
        j = m.end(); depth = 1
        while depth:
            c = text[j]
            if c == '(': depth += 1
            elif c == ')': depth -= 1
            j += 1
        out.append(text[i:j]); 
        name = m.group(2) or m.group(3) or ""
        # sync-only helpers that stay sync
        if name not in ("answer_inputs",):
            out.append(".await")
        i = j
    return "".join(out)

# async-ify method definitions
for name in IO:
    body = re.sub(r"(\n    (?:pub )?)fn %s\b" % name, r"\1async fn %s" % name, body)
body = add_awaits(body)
body = re.sub(r"\bSession\b", "AsyncSession", body)
body = re.sub(r"\bTransport\b", "AsyncTransport", body)
body = body.replace("impl<T: AsyncTransport, H: Handler> AsyncSession<T, H>", "impl<T: AsyncTransport, H: Handler + Send> AsyncSession<T, H>")
body = body.replace("pub struct AsyncSession<T: AsyncTransport, H: Handler>", "pub struct AsyncSession<T: AsyncTransport, H: Handler + Send>")
body = body.replace("impl FnMut(&Value) -> bool,", "impl FnMut(&Value) -> bool + Send,")
body = body.replace("TaskStep::Poll { after } => std::thread::sleep(after),", "TaskStep::Poll { after } => self.transport.sleep(after).await,")
body = body.replace("std::thread::sleep(", "self.transport.sleep(")
body = re.sub(r"self\.transport\.sleep\(([^;]*)\);", r"self.transport.sleep(\1).await;", body)
body = body.replace("let mut tap = |", "let mut tap = move |") if False else body
# request -> await_task -> request: a recursive async fn is boxed.
body = body.replace("self.follow_task(method, task).await", "Box::pin(self.follow_task(method, task)).await")
body = body.replace("tap: TapFn<'_>", "tap: AsyncTapFn<'_>")
header = src_header
open('client/src/async_session.rs','w').write(header + body)
