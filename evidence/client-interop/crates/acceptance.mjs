// Acceptance of snodo-crates (apps/crates-mcp): the released TypeScript
// client (@modelcontextprotocol/client, pinned in ../package-lock.json)
// drives the application over stdio and Streamable HTTP, on a fresh copy of
// the seeded registry cache (apps/crates-mcp/tests/registry) per cell:
// the catalog (titles, annotations, icons, generated schemas), every tool's
// outcomes with its errors, the prompt, the resource reads (from unpacked
// crates and from a .crate archive), indexing with progress, indexing as a
// task (the Tasks extension) polled through its progress (its
// statusMessage) to completion, and a change notification.
//
//   node acceptance.mjs --bin PATH --registry DIR [--transport stdio|http]...
//
// PATH is snodo-crates' `held` example (it takes `--hold FILE` before the
// server's own arguments), as ./run builds it.
//
// Prints one line per step and cell, then `crates-acceptance: passed/total`;
// exits 1 when any step failed. Expected values are literals here, read off
// the seeded cache by hand, not produced by the server's code.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const STEP_TIMEOUT_MS = 20_000;
const INDEX = 'src/index.crates.io-0000000000000000';
const SERVER_INFO = { name: 'snodo-crates', version: '0.1.0' };
const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

const { values } = parseArgs({
  options: {
    bin: { type: 'string' },
    registry: { type: 'string' },
    transport: { type: 'string', multiple: true },
  },
});
if (!values.bin || !values.registry) {
  console.error('acceptance.mjs: --bin PATH and --registry DIR are required');
  process.exit(2);
}
const transports = values.transport ?? ['stdio', 'http'];

function newClient() {
  return new Client(
    { name: 'snodo-crates-acceptance', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
}

function firstLine(child) {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error('no address printed')), 10_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      rl.close();
      resolve(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before printing its address`));
    });
  });
}

/**
 * Start the server on `transport` over `registry` and connect a client.
 * While the file `hold` exists, the server holds a finished index_cache's
 * answer (`--hold FILE` of snodo-crates' `held` example: a
 * snodo_testkit::Gate around the tool), so the step that watches a task's
 * progress while it is working does not depend on the machine's speed.
 */
async function connect(transport, registry, hold) {
  const session = { client: newClient(), inbound: [], errors: [], stderr: '', child: null, hold };
  let t;
  if (transport === 'stdio') {
    t = new StdioClientTransport({ command: values.bin, args: ['--hold', hold, '--registry', registry, 'stdio'], stderr: 'pipe' });
    t.stderr?.on('data', (d) => (session.stderr += d));
  } else {
    const child = spawn(values.bin, ['--hold', hold, '--registry', registry, 'http', '127.0.0.1:0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.on('data', (d) => (session.stderr += d));
    session.child = child;
    t = new StreamableHTTPClientTransport(new URL(`http://${await firstLine(child)}/mcp`));
  }
  await session.client.connect(t);
  const deliver = t.onmessage;
  const pending = new Map();
  t.onmessage = (message, extra) => {
    session.inbound.push(message);
    const waiter = pending.get(message.id);
    if (waiter && !('method' in message)) {
      pending.delete(message.id);
      if ('error' in message) waiter.reject(Object.assign(new Error(message.error.message), message.error));
      else waiter.resolve(message.result);
      return;
    }
    deliver?.(message, extra);
  };
  // A request the client will not send, written on its own transport (and
  // so the same connection): its answer is taken here, never seen by the
  // client.
  let raw = 0;
  session.raw = (method, params) =>
    new Promise((resolve, reject) => {
      const id = `raw-${++raw}`;
      pending.set(id, { resolve, reject });
      t.send({ jsonrpc: '2.0', id, method, params }).catch(reject);
    });
  session.client.onerror = (e) => session.errors.push(String(e?.message ?? e));
  return session;
}

async function close(session) {
  try {
    await session.client.close();
  } catch {
    // already gone after a failed step
  }
  if (session.child && session.child.exitCode === null) {
    session.child.kill('SIGTERM');
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        session.child.kill('SIGKILL');
        resolve();
      }, 2_000);
      session.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function nextNotification(client, method, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${method} within ${timeoutMs} ms`)), timeoutMs);
    client.setNotificationHandler(method, (n) => {
      clearTimeout(timer);
      client.removeNotificationHandler(method);
      resolve(n);
    });
  });
}

/** A structured result: its content is the same JSON as text. */
function structured(result) {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  assert.deepEqual(result._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
  assert.equal(result.content.length, 1);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

function toolError(result) {
  assert.equal(result.isError, true);
  assert.equal(result.content.length, 1);
  return result.content[0].text;
}

const invalidParams = (pattern) => (e) => {
  assert.equal(e.code, -32602, `code of ${e.message}`);
  assert.match(e.message, pattern);
  return true;
};

const STEPS = [
  {
    name: 'catalog: tools with titles, annotations and generated schemas; templates; prompt',
    async run({ client }) {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => [t.name, t.title, t.annotations, t.inputSchema.type, t.inputSchema.required, t.outputSchema?.type]),
        [
          ['search_crates', 'Search crates', READ_ONLY, 'object', ['query'], 'object'],
          ['crate_info', 'Crate info', READ_ONLY, 'object', ['name'], 'object'],
          ['find_in_crate', 'Find in crate', READ_ONLY, 'object', ['name', 'text'], 'object'],
          ['compare_versions', 'Compare versions', READ_ONLY, 'object', ['name', 'from', 'to'], 'object'],
          ['index_cache', 'Index the cache', READ_ONLY, 'object', undefined, 'object'],
        ],
      );
      // Each tool's icon: an SVG inline as a data: URI.
      for (const t of tools) {
        assert.equal(t.icons.length, 1, t.name);
        const [{ src, mimeType, sizes }] = t.icons;
        assert.deepEqual([mimeType, sizes], ['image/svg+xml', ['any']], t.name);
        assert.match(src, /^data:image\/svg\+xml;base64,/, t.name);
        assert.match(Buffer.from(src.split(',')[1], 'base64').toString(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 24 24".*<\/svg>$/, t.name);
      }
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(
        resourceTemplates.map((t) => t.uriTemplate),
        ['crates://{name}/{version}/readme', 'crates://{name}/{version}/file/{+path}'],
      );
      const { prompts } = await client.listPrompts();
      assert.match(prompts[0].icons?.[0]?.src ?? '', /^data:image\/svg\+xml;base64,/);
      assert.deepEqual(prompts.map(({ icons, ...rest }) => rest), [
        {
          name: 'review_upgrade',
          title: 'Review an upgrade',
          description: 'Review upgrading a dependency from one version to another',
          arguments: [
            { name: 'from', description: 'The version in use.', required: true },
            { name: 'name', description: 'The dependency to upgrade.', required: true },
            { name: 'to', description: 'The version to upgrade to.', required: true },
          ],
        },
      ]);
    },
  },
  {
    name: 'search_crates: ranked hits; an empty query is invalid params',
    async run({ client }) {
      assert.deepEqual(structured(await client.callTool({ name: 'search_crates', arguments: { query: 'json' } })), {
        crates: [
          {
            name: 'tinyjson',
            latest: '0.2.0',
            versions: ['0.1.0', '0.2.0'],
            description: 'A tiny JSON parser',
            keywords: ['json', 'parser', 'serde'],
          },
        ],
        total: 1,
      });
      const terminal = structured(await client.callTool({ name: 'search_crates', arguments: { query: 'terminal' } }));
      assert.deepEqual(terminal.crates.map((c) => c.name), ['colorize']);
      await assert.rejects(
        client.callTool({ name: 'search_crates', arguments: { query: '' } }),
        invalidParams(/Invalid arguments for tool search_crates: \/query: "" is shorter than 1 character/),
      );
    },
  },
  {
    name: 'crate_info: features and dependencies; an unknown crate is a tool error',
    async run({ client }) {
      assert.deepEqual(
        structured(await client.callTool({ name: 'crate_info', arguments: { name: 'colorize' } })),
        {
          name: 'colorize',
          version: '1.0.0',
          versions: ['1.0.0'],
          description: 'Colour terminal text',
          features: { default: [], json: ['dep:tinyjson'] },
          dependencies: [
            { name: 'tinyjson', req: '0.2', kind: 'normal', optional: true },
            { name: 'tinyjson', req: '0.2', kind: 'dev', optional: false },
          ],
          readme: 'crates://colorize/1.0.0/readme',
        },
      );
      assert.equal(
        toolError(await client.callTool({ name: 'crate_info', arguments: { name: 'serde' } })),
        'No crate named "serde" is in the local registry cache; search_crates finds names',
      );
      await assert.rejects(
        client.callTool({ name: 'crate_info', arguments: { version: '1.0.0' } }),
        invalidParams(/Invalid arguments for tool crate_info: "name" is a required property/),
      );
    },
  },
  {
    name: 'find_in_crate: a definition and a truncated text search',
    async run({ client }) {
      assert.deepEqual(
        structured(
          await client.callTool({ name: 'find_in_crate', arguments: { name: 'tinyjson', text: 'Deserializer', symbol: true } }),
        ),
        {
          name: 'tinyjson',
          version: '0.2.0',
          truncated: false,
          matches: [{ file: 'src/de/mod.rs', line: 6, text: "pub struct Deserializer<'a> {" }],
        },
      );
      const some = structured(
        await client.callTool({ name: 'find_in_crate', arguments: { name: 'tinyjson', version: '0.1.0', text: 'Value::', limit: 2 } }),
      );
      assert.equal(some.matches.length, 2);
      assert.equal(some.truncated, true);
      assert.equal(
        toolError(await client.callTool({ name: 'find_in_crate', arguments: { name: 'nope', text: 'x' } })),
        'No crate named "nope" is in the local registry cache; search_crates finds names',
      );
      await assert.rejects(
        client.callTool({ name: 'find_in_crate', arguments: { name: 'tinyjson', text: '' } }),
        invalidParams(/Invalid arguments for tool find_in_crate: \/text: "" is shorter than 1 character/),
      );
    },
  },
  {
    name: 'compare_versions: what the upgrade adds and removes',
    async run({ client }) {
      assert.deepEqual(
        structured(await client.callTool({ name: 'compare_versions', arguments: { name: 'tinyjson', from: '0.1.0', to: '0.2.0' } })),
        {
          name: 'tinyjson',
          from: '0.1.0',
          to: '0.2.0',
          added: ['fn de::new', 'fn de::value', 'fn to_writer', 'mod de', 'struct de::Deserializer'],
          removed: ['fn to_string'],
          features_added: ['preserve_order'],
          features_removed: [],
        },
      );
      assert.equal(
        toolError(await client.callTool({ name: 'compare_versions', arguments: { name: 'tinyjson', from: '0.1.0', to: '3' } })),
        'tinyjson 3 is not in the local registry cache; it has 0.1.0, 0.2.0',
      );
      await assert.rejects(
        client.callTool({ name: 'compare_versions', arguments: { name: 'tinyjson', from: '0.1.0' } }),
        invalidParams(/Invalid arguments for tool compare_versions: "to" is a required property/),
      );
    },
  },
  {
    name: 'prompts/get review_upgrade: the comparison and the new README',
    async run({ client }) {
      const prompt = await client.getPrompt({ name: 'review_upgrade', arguments: { name: 'tinyjson', from: '0.1.0', to: '0.2.0' } });
      assert.equal(prompt.description, 'Upgrade review of tinyjson 0.1.0 → 0.2.0');
      assert.equal(prompt.messages.length, 2);
      assert.match(prompt.messages[0].content.text, /^Review the upgrade of the dependency `tinyjson` from 0\.1\.0 to 0\.2\.0\./);
      assert.deepEqual(prompt.messages[1].content.resource, {
        uri: 'crates://tinyjson/0.2.0/readme',
        mimeType: 'text/markdown',
        text: '# tinyjson 0.2\n\nParse JSON text into a `Value`; write it with `to_writer`.\n`to_string` is gone: use `to_writer` with a `String`.\n',
      });
      await assert.rejects(
        client.getPrompt({ name: 'review_upgrade', arguments: { name: 'tinyjson', from: '0.1.0', to: '9' } }),
        invalidParams(/tinyjson 9 is not in the local registry cache/),
      );
    },
  },
  {
    name: 'completion: crate names, then the chosen crate\'s versions',
    async run({ client }) {
      const names = await client.complete({
        ref: { type: 'ref/prompt', name: 'review_upgrade' },
        argument: { name: 'name', value: 'col' },
      });
      assert.deepEqual(names.completion, { values: ['colorize'], total: 1, hasMore: false });
      const versions = await client.complete({
        ref: { type: 'ref/prompt', name: 'review_upgrade' },
        argument: { name: 'to', value: '' },
        context: { arguments: { name: 'tinyjson' } },
      });
      assert.deepEqual(versions.completion, { values: ['0.2.0', '0.1.0'], total: 2, hasMore: false });
    },
  },
  {
    // tinyjson 0.1.0 is only downloaded: a .crate archive in cache/, no
    // unpacked directory.
    name: 'resources/read from a .crate archive cargo did not unpack',
    async run({ client }) {
      const readme = await client.readResource({ uri: 'crates://tinyjson/0.1.0/readme' });
      assert.deepEqual(readme.contents, [
        {
          uri: 'crates://tinyjson/0.1.0/readme',
          mimeType: 'text/markdown',
          text: '# tinyjson 0.1\n\nParse JSON text into a `Value`, and write it back with `to_string`.\n',
        },
      ]);
      const file = await client.readResource({ uri: 'crates://tinyjson/0.1.0/file/src/lib.rs' });
      assert.equal(file.contents[0].text.split('\n')[21], 'pub fn to_string(value: &Value) -> String {');
      await assert.rejects(
        client.readResource({ uri: 'crates://tinyjson/0.1.0/file/../tinyjson-0.2.0/src/lib.rs' }),
        invalidParams(/Resource not found/),
      );
    },
  },
  {
    name: 'resources/read: a README, a source file, and a path leaving the crate',
    async run({ client }) {
      const readme = await client.readResource({ uri: 'crates://colorize/1.0.0/readme' });
      assert.deepEqual(readme.contents, [
        {
          uri: 'crates://colorize/1.0.0/readme',
          mimeType: 'text/markdown',
          text: '# colorize\n\n`red("text")` wraps text in ANSI colour codes.\n',
        },
      ]);
      const file = await client.readResource({ uri: 'crates://colorize/1.0.0/file/src/lib.rs' });
      assert.equal(file.contents[0].mimeType, 'text/x-rust');
      assert.match(file.contents[0].text, /^\/\/! Colour terminal text\.\n/);
      await assert.rejects(
        client.readResource({ uri: 'crates://colorize/1.0.0/file/../tinyjson-0.1.0/src/lib.rs' }),
        invalidParams(/Resource not found/),
      );
    },
  },
  {
    // The client dispatches notifications a microtask later than responses
    // (client-interop's README, "Progress just before the response"): the
    // three reports are asserted on the wire, before the response.
    name: 'index_cache: progress for every crate version, then the summary',
    async run(session) {
      const { client } = session;
      const from = session.inbound.length;
      const reports = [];
      const result = await client.callTool({ name: 'index_cache', arguments: {} }, { onprogress: (p) => reports.push(p) });
      assert.deepEqual(structured(result), { crates: 2, versions: 3, skipped: 0 });
      await assert.rejects(
        client.callTool({ name: 'index_cache', arguments: { full: true } }),
        invalidParams(/Invalid arguments for tool index_cache: Additional properties are not allowed \('full' was unexpected\)/),
      );
      await new Promise((r) => setTimeout(r, 20));
      const wire = session.inbound.slice(from);
      const response = wire.findIndex((m) => 'result' in m);
      const token = wire[response].id;
      const progress = wire.filter((m) => m.method === 'notifications/progress');
      assert.deepEqual(
        progress.map((m) => m.params),
        [1, 2, 3].map((n) => ({ progressToken: token, progress: n, total: 3, message: `${n} of 3 crate versions read` })),
      );
      assert.ok(progress.every((m) => wire.indexOf(m) < response), 'every report before the response');
      session.errors = session.errors.filter((e) => !e.startsWith('Received a progress notification for an unknown token'));
    },
  },
  {
    // The Tasks extension (io.modelcontextprotocol/tasks): a client that
    // declares it gets index_cache as a task and polls tasks/get to the
    // end. The released client refuses tasks/get toward a 2026-07-28 peer
    // before sending it (METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION: its
    // registry knows tasks/get only as the 2025-11-25 core method), so the
    // requests go out on its transport, with the envelope it would attach.
    // A task has no notifications/progress (the extension's § Task Status
    // Notifications); its progress is its statusMessage while working
    // (§ Tasks). The hold file holds the run's answer until the client has
    // seen that status, then lets it go. Which report the status shows
    // depends on when the runner looked (its renewal interval), so any.
    name: 'index_cache as a task: its progress as statusMessage while working, then completed with the summary',
    async run(session) {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      };
      const poll = async (taskId, until) => {
        for (let i = 0; i < 1000; i++) {
          const task = await session.raw('tasks/get', { taskId, _meta: meta });
          if (until(task)) return task;
          await new Promise((r) => setTimeout(r, 10));
        }
        throw new Error(`task ${taskId}: not there in time`);
      };
      writeFileSync(session.hold, '');
      const created = await session.raw('tools/call', { name: 'index_cache', arguments: {}, _meta: meta });
      assert.equal(created.resultType, 'task');
      assert.equal(created.status, 'working');
      assert.equal(typeof created.taskId, 'string');
      const working = await poll(created.taskId, (t) => t.statusMessage !== undefined || t.status !== 'working');
      assert.deepEqual([working.status, working.taskId], ['working', created.taskId]);
      assert.match(working.statusMessage, /^[123] of 3 crate versions read$/);
      assert.ok(working.lastUpdatedAt >= created.lastUpdatedAt, JSON.stringify(working));
      rmSync(session.hold);
      const task = await poll(created.taskId, (t) => t.status !== 'working');
      assert.equal(task.status, 'completed', JSON.stringify(task));
      assert.equal(task.statusMessage, undefined);
      assert.deepEqual(task.result.structuredContent, { crates: 2, versions: 3, skipped: 0 });
      assert.deepEqual(JSON.parse(task.result.content[0].text), task.result.structuredContent);
    },
  },
  {
    name: 'a crate changed on disk: resources/updated to the README subscriber',
    async run({ client, registry }) {
      const uri = 'crates://tinyjson/0.2.0/readme';
      const sub = await client.listen({ resourceSubscriptions: [uri] });
      assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [uri] });
      const updated = nextNotification(client, 'notifications/resources/updated');
      const manifest = join(registry, INDEX, 'tinyjson-0.2.0', 'Cargo.toml');
      writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('A tiny JSON parser', 'A tinier JSON parser'));
      const n = await updated;
      assert.equal(n.params.uri, uri);
      const info = structured(await client.callTool({ name: 'crate_info', arguments: { name: 'tinyjson' } }));
      assert.equal(info.description, 'A tinier JSON parser');
      await sub.close();
    },
  },
  {
    name: 'no client errors',
    async run(session) {
      assert.deepEqual(session.errors, []);
    },
  },
];

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no outcome within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let passed = 0;
let total = 0;
for (const transport of transports) {
  const registry = mkdtempSync(join(tmpdir(), 'snodo-crates-'));
  cpSync(values.registry, registry, { recursive: true });
  const hold = `${registry}.hold`;
  let session;
  try {
    session = await withTimeout(connect(transport, registry, hold), STEP_TIMEOUT_MS, 'connect');
    session.registry = registry;
  } catch (e) {
    console.log(`FAIL [${transport}] connect: ${e.message}`);
    total += STEPS.length;
    rmSync(registry, { recursive: true, force: true });
    continue;
  }
  for (const step of STEPS) {
    total += 1;
    try {
      await withTimeout(step.run(session), STEP_TIMEOUT_MS, step.name);
      passed += 1;
      console.log(`ok   [${transport}] ${step.name}`);
    } catch (e) {
      console.log(`FAIL [${transport}] ${step.name}\n${e?.stack ?? e}\nserver stderr:\n${session.stderr}`);
    }
  }
  await close(session);
  rmSync(registry, { recursive: true, force: true });
  rmSync(hold, { force: true });
}
console.log(`crates-acceptance: ${passed}/${total} passed`);
process.exit(passed === total ? 0 : 1);
