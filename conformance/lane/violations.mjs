// What may fail inside an expected `wire-schema-valid` FAILURE.
//
// The runner (0.2.0-alpha.11) puts every schema violation of a scenario into
// one check, `wire-schema-valid`, whose `details.violations` lists each
// offending message with the runner's error strings, formatted
// `<Definition><instancePath>: <ajv message>[ (result of '<method>')]`
// (SCENARIOS-2026-07-28.md § 1.7). A baseline entry for that check names the violations
// it allows, each by
//
//   definition    the runner's schema definition (`CallToolResult`),
//   instancePath  the JSON pointer inside it ("" for the result itself),
//   error         ajv's message (`must have required property 'content'`),
//   of            the request method the message answers (`tools/call`),
//   resultIs      (optional) a definition of the vendored Tasks extension
//                 schema that the message's `result` must satisfy,
//
// and any violation, or any error string of a violation, that no allowance
// matches fails the lane. `resultIs` is the reason made code: "the runner
// reads a CreateTaskResult as a CallToolResult" holds only if the message is
// a JSON-RPC response whose result is a valid CreateTaskResult
// (tasks.md § Task Creation); a tools/call result that merely lacks
// `content` is not one and fails.

import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
// ajv 8 and ajv-formats are the runner's own validator, pinned by
// conformance/package-lock.json; used the way the runner uses them.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));

// The Tasks extension schema, 2026-07-28 (modelcontextprotocol/ext-tasks at
// 05dde3b8; conformance/run pins its SHA-256).
export const TASKS_SCHEMA = join(here, "tasks-2026-07-28.schema.json");
const TASKS_ID = "https://modelcontextprotocol.io/ext-tasks/2026-07-28/schema.json";

let tasks = null;
function tasksValidator(definition) {
  if (!tasks) {
    const schema = JSON.parse(readFileSync(TASKS_SCHEMA, "utf8"));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schema, TASKS_ID);
    tasks = { ajv, defs: schema.$defs, compiled: new Map() };
  }
  if (!(definition in tasks.defs)) return null;
  if (!tasks.compiled.has(definition)) {
    tasks.compiled.set(definition, tasks.ajv.compile({ $ref: `${TASKS_ID}#/$defs/${definition}` }));
  }
  return tasks.compiled.get(definition);
}

// One runner error string, or null when it is not of the documented shape
// (a truncation line "... N more error(s)", a batch prefix): such a string
// never matches an allowance.
export function parseRunnerError(text) {
  if (typeof text !== "string") return null;
  const sep = text.indexOf(": ");
  if (sep < 0) return null;
  const head = /^([A-Za-z][A-Za-z0-9_]*)((?:\/.*)?)$/.exec(text.slice(0, sep));
  if (!head) return null;
  let error = text.slice(sep + 2);
  let of = null;
  const result = / \(result of '([^']*)'\)$/.exec(error);
  if (result) {
    of = result[1];
    error = error.slice(0, result.index);
  }
  return { definition: head[1], instancePath: head[2], error, of };
}

const FIELDS = ["definition", "instancePath", "error", "of"];

// A baseline's `allowedViolations`, checked for shape; returns the problems.
export function allowanceProblems(allowed) {
  if (!Array.isArray(allowed) || allowed.length === 0) return ["allowedViolations must be a non-empty list"];
  const problems = [];
  allowed.forEach((a, i) => {
    for (const f of FIELDS) {
      if (typeof a?.[f] !== "string") problems.push(`allowedViolations[${i}].${f} must be a string`);
    }
    if (a?.resultIs !== undefined && !tasksValidator(a.resultIs)) {
      problems.push(`allowedViolations[${i}].resultIs: ${a.resultIs} is not a definition of the Tasks extension schema`);
    }
  });
  return problems;
}

// Why `message` is not a response whose result is a valid `definition`, or
// null when it is one.
function resultIsNot(definition, message) {
  if (message?.jsonrpc !== "2.0" || !("id" in message) || typeof message.result !== "object" || message.result === null) {
    return `not a JSON-RPC response with a result`;
  }
  const validate = tasksValidator(definition);
  if (validate(message.result)) return null;
  return `result is not a valid ${definition}: ${validate.errors.map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ")}`;
}

// The violations of one wire-schema-valid check that its allowances do not
// cover, each as a sentence naming the error and the message.
export function disallowedViolations(details, allowed) {
  const violations = details?.violations;
  if (!Array.isArray(violations) || violations.length === 0) {
    return ["the runner reported no violation details to hold against the allowances"];
  }
  const out = [];
  for (const v of violations) {
    const shown = JSON.stringify(v.message ?? null);
    const errors = Array.isArray(v.errors) && v.errors.length > 0 ? v.errors : ["(no error strings)"];
    for (const text of errors) {
      const e = parseRunnerError(text);
      const match = e && allowed.find((a) => FIELDS.every((f) => a[f] === (e[f] ?? "")));
      if (!match) {
        out.push(`violation not allowed by the baseline: ${text} — message: ${shown}`);
        continue;
      }
      if (match.resultIs !== undefined) {
        const why = resultIsNot(match.resultIs, v.message);
        if (why) out.push(`violation allowed only for a ${match.resultIs}, but ${why}: ${text} — message: ${shown}`);
      }
    }
  }
  return out;
}
