// Starting snodo-fixture on one transport and runtime, and connecting the
// released client to it at protocol revision 2026-07-28.
//
// Over stdio the client's own StdioClientTransport spawns the fixture
// (`--stdio --runtime R`). Over Streamable HTTP we spawn
// `--listen 127.0.0.1:0 --runtime R` and read the bound address from the
// first stdout line (the fixture's documented contract).

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const PROTOCOL_VERSION = '2026-07-28';

/** How long the fixture may take to print its address. */
const ADDRESS_TIMEOUT_MS = 10_000;

/**
 * The capabilities this client declares in every request's `_meta`: form
 * and URL elicitation, sampling and roots, so the fixture's MRTR tools may
 * ask for any of them (`basic/patterns/mrtr.mdx` rule 7).
 */
const CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: {},
};

/**
 * A started fixture and a connected client. `inbound` records every message
 * the server wrote, as the client's transport decoded it, so steps can check
 * the wire as well as the client's view of it. `errors` collects what the
 * client reported through `onerror`; a clean run has none.
 */
export class Session {
  constructor({ client, transport, child, label }) {
    this.client = client;
    this.transport = transport;
    this.child = child;
    this.label = label;
    this.inbound = [];
    this.errors = [];
    this.stderr = '';
  }

  async close() {
    try {
      await this.client.close();
    } catch {
      // Closing after a failed step may find the transport already gone.
    }
    if (this.child && this.child.exitCode === null) {
      this.child.kill('SIGTERM');
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.child.kill('SIGKILL');
          resolve();
        }, 2_000);
        this.child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/**
 * The client, with the handlers a step installs replaced per step. With
 * `era` 'modern' it is pinned to 2026-07-28; with 'legacy' it keeps its
 * default, the 2025 `initialize` handshake at 2025-11-25.
 */
function newClient(era) {
  const options = { capabilities: CAPABILITIES };
  // Pinning makes it probe with server/discover and speak 2026-07-28 only.
  if (era === 'modern') options.versionNegotiation = { mode: { pin: PROTOCOL_VERSION } };
  return new Client({ name: 'snodo-client-interop', version: '1.0.0' }, options);
}

/** Resolve with the first stdout line of `child`, or reject. */
function firstLine(child) {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error('the fixture printed no address')), ADDRESS_TIMEOUT_MS);
    rl.once('line', (line) => {
      clearTimeout(timer);
      rl.close();
      resolve(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fixture exited (${code}) before printing its address`));
    });
  });
}

/** Record every inbound message before the client sees it. */
function tap(session) {
  const deliver = session.transport.onmessage;
  session.transport.onmessage = (message, extra) => {
    session.inbound.push(message);
    deliver?.(message, extra);
  };
  session.client.onerror = (error) => session.errors.push(String(error?.message ?? error));
}

/**
 * Start the fixture at `fixture` on `transport` ('stdio' | 'http') with
 * `runtime` and connect a client of `era` ('modern' | 'legacy') to it.
 */
export async function connect(fixture, transport, runtime, era = 'modern') {
  const label = `${transport}/${runtime}`;
  const client = newClient(era);
  if (transport === 'stdio') {
    const t = new StdioClientTransport({
      command: fixture,
      args: ['--stdio', '--runtime', runtime],
      // The transport passes only a safe default environment; keep the
      // fixture's log level when one is asked for.
      env: process.env.RUST_LOG ? { RUST_LOG: process.env.RUST_LOG } : undefined,
      stderr: 'pipe',
    });
    const session = new Session({ client, transport: t, child: null, label });
    t.stderr?.on('data', (d) => (session.stderr += d));
    await client.connect(t);
    tap(session);
    return session;
  }
  const child = spawn(fixture, ['--listen', '127.0.0.1:0', '--runtime', runtime], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const addr = await firstLine(child);
  const t = new StreamableHTTPClientTransport(new URL(`http://${addr}/mcp`));
  const session = new Session({ client, transport: t, child, label });
  child.stderr.on('data', (d) => (session.stderr += d));
  session.stderr = stderr;
  await client.connect(t);
  tap(session);
  return session;
}
