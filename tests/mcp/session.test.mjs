// What an agent session costs in context: the scripted session of
// agentSession.mjs on psf/requests, its bytes held to the budgets an agent
// can afford (docs/mcp.md, "What an answer costs"). The figures are quoted
// by bench/agent_session.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { runSession } from './agentSession.mjs';

test('a scripted session on a real repository stays within its byte budgets', async () => {
  const calls = await runSession();
  for (const c of calls) assert.equal(c.error, undefined, `${c.step}: ${c.tool} failed: ${c.error}`);
  const list = calls.find((c) => c.tool === 'tools/list');
  assert.ok(list.bytes <= 16 * 1024, `tools/list is ${list.bytes} bytes`);
  const recalls = calls.filter((c) => c.tool === 'recall');
  assert.ok(recalls.length >= 10);
  for (const r of recalls) assert.ok(r.bytes <= 5 * 1024, `${r.step}: a recall of ${r.rows} rows is ${r.bytes} bytes`);
  // A default recall: ten rows.
  const latest = calls.find((c) => c.step === 'recall the latest');
  assert.equal(latest.rows, 10);
  const handOff = calls.find((c) => c.tool === 'delegate');
  assert.ok(handOff.bytes <= 5 * 1024, `a packet of ten items is ${handOff.bytes} bytes`);
  // Checked by its id: the packet is not sent back.
  const verify = calls.find((c) => c.tool === 'verify_packet');
  assert.ok(verify.bytes <= 512, `verify_packet answered in ${verify.bytes} bytes`);
});
