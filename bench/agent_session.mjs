// Bytes per call of a scripted agent session (tests/mcp/agentSession.mjs)
// on psf/requests, as the client receives each result: by default (the
// text an agent's client hands the model) and with --structured (the JSON
// beside it, as a program asks). Prints a table and writes
// bench/results/agent-session.json.
//
// usage: ENGRAM_BINARY=build-bench/engram node bench/agent_session.mjs [--out FILE]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { median, runSession } from '../tests/mcp/agentSession.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const outAt = process.argv.indexOf('--out');
const out = outAt > 0 ? process.argv[outAt + 1] : path.join(here, 'results/agent-session.json');

const runs = { default: await runSession(), structured: await runSession({ structured: true }) };
const byTool = {};
for (const [mode, calls] of Object.entries(runs))
  for (const c of calls) {
    const t = (byTool[c.tool] ??= { calls: 0 });
    if (mode === 'default') t.calls += 1;
    (t[mode] ??= []).push(c.bytes);
  }
const table = Object.entries(byTool).map(([tool, t]) => ({
  tool,
  calls: t.calls,
  median_bytes: median(t.default),
  max_bytes: Math.max(...t.default),
  median_bytes_structured: median(t.structured),
}));
const total = (calls) => calls.reduce((n, c) => n + c.bytes, 0);
const latest = (calls) => calls.find((c) => c.step === 'recall the latest').bytes;
const summary = {
  session_bytes: total(runs.default),
  session_bytes_structured: total(runs.structured),
  recall_10_rows_bytes: latest(runs.default),
  recall_10_rows_bytes_structured: latest(runs.structured),
};

console.log('tool            calls  median B   max B  median B (--structured)');
for (const r of table)
  console.log(`${r.tool.padEnd(15)} ${String(r.calls).padStart(5)} ${String(r.median_bytes).padStart(9)} ${String(r.max_bytes).padStart(7)} ${String(r.median_bytes_structured).padStart(10)}`);
console.log(`whole session: ${summary.session_bytes} B (with --structured: ${summary.session_bytes_structured} B)`);
console.log(`a default recall of 10 rows: ${summary.recall_10_rows_bytes} B (with --structured: ${summary.recall_10_rows_bytes_structured} B)`);

fs.writeFileSync(out, JSON.stringify({ repository: 'psf/requests (python3-requests)', tools: table, ...summary }, null, 2) + '\n');
