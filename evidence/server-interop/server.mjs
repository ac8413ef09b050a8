// A server written against the released official TypeScript SDK
// (@modelcontextprotocol/server 2.4.0, @modelcontextprotocol/node 2.1.2),
// the way its documentation's examples write one: one factory of McpServer
// instances, served on stdio by `serveStdio` and on Streamable HTTP by
// `createMcpHandler` behind `toNodeHandler` on node:http. Both entries serve
// the 2026-07-28 revision (per-request `_meta`, `server/discover`, input
// requests as `input_required` results) and the 2025 era (`initialize`,
// server-to-client requests) from the same factory.
//
//   node server.mjs --stdio
//   node server.mjs --http           # prints "listening http://127.0.0.1:PORT/mcp"
//   node server.mjs --http-sessions  # the same, 2025 traffic sessionful
//
// `--http` serves the 2025 era the way `createMcpHandler` does by default:
// statelessly, a fresh server per POST. `--http-sessions` is the
// composition the SDK documents for keeping a sessionful 2025 deployment
// next to a strict modern endpoint: `isLegacyRequest` routes 2025 traffic
// to a `WebStandardStreamableHTTPServerTransport` per `Mcp-Session-Id`, the
// rest to `createMcpHandler(factory, { legacy: 'reject' })`.
//
// snodo's driver (client/examples/interop.rs) holds the expected answers
// written out on its own side; nothing here is shaped for it beyond being a
// small server with one of each kind of thing.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import {
    localhostHostValidation,
    localhostOriginValidation,
    toNodeHandler
} from '@modelcontextprotocol/node';
import {
    acceptedContent,
    completable,
    createMcpHandler,
    inputRequired,
    inputResponse,
    isInitializeRequest,
    isLegacyRequest,
    McpServer,
    ResourceTemplate,
    WebStandardStreamableHTTPServerTransport
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/**
 * One McpServer for one serving unit (an HTTP request, or a stdio
 * connection). `era` says which dialect it serves: on `modern`
 * (2026-07-28) a tool that needs input returns `inputRequired(...)` and is
 * called again with the answers; on `legacy` it sends the request to the
 * client and awaits the answer (the push model of the 2025 revisions).
 */
function buildServer({ era }) {
    const server = new McpServer(
        { name: 'snodo-interop-ts', version: '1.0.0' },
        { instructions: 'A small server on the released TypeScript SDK for snodo-client.' }
    );

    server.registerTool(
        'echo',
        {
            title: 'Echo',
            description: 'Echoes the message back',
            inputSchema: z.object({ message: z.string() })
        },
        async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] })
    );

    server.registerTool(
        'add',
        {
            title: 'Add',
            description: 'Adds two numbers, with structured output',
            inputSchema: z.object({ a: z.number(), b: z.number() }),
            outputSchema: z.object({ sum: z.number() })
        },
        async ({ a, b }) => {
            const output = { sum: a + b };
            return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
        }
    );

    server.registerTool(
        'fail',
        { description: 'Always fails with a tool error' },
        async () => {
            throw new Error('this tool always fails');
        }
    );

    // SEP-2243: `x-mcp-header` asks HTTP clients to mirror `region` into
    // an `Mcp-Param-Region` header; the SDK's HTTP entry rejects a call
    // whose header is missing or disagrees with the body (-32020).
    server.registerTool(
        'region',
        {
            description: 'Echoes a region the client also mirrors into a header',
            inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) })
        },
        async ({ region }) => ({ content: [{ type: 'text', text: `region: ${region}` }] })
    );

    const confirmation = z.object({ confirm: z.boolean() });
    server.registerTool(
        'deploy',
        {
            description: 'Asks for confirmation (elicitation) before deploying',
            inputSchema: z.object({ env: z.string() })
        },
        async ({ env }, ctx) => {
            const message = `Deploy to ${env}?`;
            let confirmed;
            if (era === 'modern') {
                const content = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
                if (content === undefined) {
                    return inputRequired({
                        inputRequests: { confirm: inputRequired.elicit({ message, requestedSchema: confirmation }) }
                    });
                }
                confirmed = content.confirm;
            } else {
                const answer = await ctx.mcpReq.elicitInput({
                    mode: 'form',
                    message,
                    requestedSchema: {
                        type: 'object',
                        properties: { confirm: { type: 'boolean' } },
                        required: ['confirm']
                    }
                });
                confirmed = answer.action === 'accept' && answer.content?.confirm === true;
            }
            const text = confirmed ? `deployed to ${env}` : `deployment to ${env} cancelled`;
            return { content: [{ type: 'text', text }] };
        }
    );

    // Two rounds: the name, then the colour. Between the rounds the
    // server keeps nothing: the name rides in `requestState`, which the
    // client must echo exactly. (The state only shapes a greeting; a
    // server whose state mattered would sign it, as the SDK's docs say.)
    server.registerTool(
        'interview',
        { description: 'Asks two questions, one round each (2026-07-28: requestState between them)' },
        async (ctx) => {
            const nameForm = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
            const colourForm = { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] };
            if (era !== 'modern') {
                const a = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Your name?', requestedSchema: nameForm });
                const b = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Your favourite colour?', requestedSchema: colourForm });
                return { content: [{ type: 'text', text: `${a.content?.name} likes ${b.content?.colour}` }] };
            }
            const state = ctx.mcpReq.requestState();
            if (state === undefined) {
                const name = acceptedContent(ctx.mcpReq.inputResponses, 'name');
                if (name === undefined) {
                    return inputRequired({
                        inputRequests: { name: inputRequired.elicit({ message: 'Your name?', requestedSchema: nameForm }) }
                    });
                }
                return inputRequired({
                    inputRequests: {
                        colour: inputRequired.elicit({ message: 'Your favourite colour?', requestedSchema: colourForm })
                    },
                    requestState: `name:${name.name}`
                });
            }
            const colour = acceptedContent(ctx.mcpReq.inputResponses, 'colour');
            if (!state.startsWith('name:') || colour === undefined) {
                throw new Error(`unexpected round: state ${JSON.stringify(state)}`);
            }
            return { content: [{ type: 'text', text: `${state.slice(5)} likes ${colour.colour}` }] };
        }
    );

    server.registerTool(
        'ask_model',
        { description: 'Asks the client to sample a model', inputSchema: z.object({ question: z.string() }) },
        async ({ question }, ctx) => {
            const params = {
                messages: [{ role: 'user', content: { type: 'text', text: question } }],
                maxTokens: 64
            };
            let result;
            if (era === 'modern') {
                const answer = inputResponse(ctx.mcpReq.inputResponses, 'model');
                if (answer.kind !== 'sampling') {
                    return inputRequired({ inputRequests: { model: inputRequired.createMessage(params) } });
                }
                result = answer.result;
            } else {
                result = await ctx.mcpReq.requestSampling(params);
            }
            const said = result.content?.type === 'text' ? result.content.text : JSON.stringify(result.content);
            return { content: [{ type: 'text', text: `${result.model} said: ${said}` }] };
        }
    );

    server.registerTool(
        'roots',
        { description: "Lists the client's roots" },
        async (ctx) => {
            let roots;
            if (era === 'modern') {
                const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
                if (answer.kind !== 'roots') {
                    return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
                }
                roots = answer.roots;
            } else {
                roots = (await ctx.mcpReq.send({ method: 'roots/list' })).roots;
            }
            return { content: [{ type: 'text', text: roots.map(r => r.uri).join(' ') }] };
        }
    );

    server.registerTool(
        'steps',
        {
            description: 'Reports progress for each step, then answers',
            inputSchema: z.object({ steps: z.number().int().min(1).max(10) })
        },
        async ({ steps }, ctx) => {
            const progressToken = ctx.mcpReq._meta?.progressToken;
            for (let i = 1; i <= steps; i++) {
                await sleep(20);
                if (progressToken !== undefined) {
                    await ctx.mcpReq.notify({
                        method: 'notifications/progress',
                        params: { progressToken, progress: i, total: steps, message: `step ${i}` }
                    });
                }
            }
            return { content: [{ type: 'text', text: `${steps} steps done` }] };
        }
    );

    server.registerResource(
        'readme',
        'docs://readme',
        { title: 'Read me', description: 'What this server is', mimeType: 'text/plain' },
        async uri => ({
            contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'A server on the released TypeScript SDK.' }]
        })
    );

    server.registerResource(
        'greeting',
        new ResourceTemplate('greeting://{name}', {
            list: undefined,
            complete: { name: value => ['Ada', 'Alan', 'Grace'].filter(n => n.startsWith(value)) }
        }),
        { title: 'Greeting', description: 'A greeting for anyone', mimeType: 'text/plain' },
        async (uri, { name }) => ({
            contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${name}!` }]
        })
    );

    server.registerPrompt(
        'review-code',
        {
            title: 'Code Review',
            description: 'Review code for best practices',
            argsSchema: z.object({
                code: z.string(),
                language: completable(z.string(), value =>
                    ['Rust', 'Ruby', 'TypeScript'].filter(l => l.toLowerCase().startsWith(value.toLowerCase()))
                ).optional()
            })
        },
        ({ code, language }) => ({
            messages: [
                {
                    role: 'user',
                    content: { type: 'text', text: `Please review this ${language ?? 'unknown'} code:\n\n${code}` }
                }
            ]
        })
    );

    return server;
}

/**
 * The 2025 era served with sessions: an `initialize` POST opens one (a
 * fresh server and transport, the id minted by the transport), every later
 * request names it in `Mcp-Session-Id`. The pattern of the SDK's stateful
 * transport examples, on the web-standard transport so it composes with
 * `createMcpHandler` behind one `toNodeHandler`.
 */
function sessionfulLegacy() {
    const sessions = new Map();
    const refuse = (status, code, message) =>
        Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
    return async request => {
        const id = request.headers.get('mcp-session-id');
        if (id !== null) {
            const transport = sessions.get(id);
            return transport === undefined ? refuse(404, -32001, 'Session not found') : transport.handleRequest(request);
        }
        const body = request.method === 'POST' ? await request.clone().json().catch(() => undefined) : undefined;
        if (!isInitializeRequest(body)) return refuse(400, -32000, 'Bad Request: no valid session ID');
        const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: sid => void sessions.set(sid, transport),
            onsessionclosed: sid => void sessions.delete(sid)
        });
        await buildServer({ era: 'legacy' }).connect(transport);
        return transport.handleRequest(request);
    };
}

const mode = process.argv[2];
const onerror = error => console.error(`server-interop server: ${error?.stack ?? error}`);

if (mode === '--stdio') {
    serveStdio(buildServer, { onerror });
} else if (mode === '--http' || mode === '--http-sessions') {
    // The documented node:http wiring: loopback only, Host and Origin
    // guards in front, the web-standard handler adapted with toNodeHandler.
    let mcp;
    if (mode === '--http') {
        mcp = createMcpHandler(buildServer, { onerror });
    } else {
        const modern = createMcpHandler(buildServer, { legacy: 'reject', onerror });
        const legacy = sessionfulLegacy();
        mcp = { fetch: async request => ((await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request)) };
    }
    const handler = toNodeHandler(mcp);
    const validateHost = localhostHostValidation();
    const validateOrigin = localhostOriginValidation();
    const http = createServer(async (req, res) => {
        if (!validateHost(req, res) || !validateOrigin(req, res)) return;
        if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
            res.writeHead(404).end();
            return;
        }
        await handler(req, res);
    });
    http.listen(0, '127.0.0.1', () => {
        console.log(`listening http://127.0.0.1:${http.address().port}/mcp`);
    });
    // The driver closes our stdin when it is done: stop then.
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
} else {
    console.error('usage: node server.mjs --stdio | --http | --http-sessions');
    process.exit(2);
}
