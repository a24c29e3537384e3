// Every tool round-tripped through the SDK client in a temporary copy of the
// sample workspace; every result checked against the output schema the
// tool declared.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { TOOL_NAMES, connect, makeAjv, makeWorkspace, textOf } from './helpers.mjs';

describe('tools', () => {
  let ws, s, validators;
  const seen = new Set();

  // Calls a tool, requires success, validates structuredContent against
  // the tool's declared outputSchema (the SDK does too; this is strict mode
  // and reports every error), and requires a readable text rendering.
  async function ok(name, args = {}) {
    const r = await s.call(name, args);
    assert.notEqual(r.isError, true, `${name} failed: ${textOf(r)}`);
    const validate = validators[name];
    assert.ok(validate(r.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`);
    assert.ok(textOf(r).length > 0, `${name} renders text`);
    seen.add(name);
    return r;
  }

  before(async () => {
    ws = makeWorkspace();
    s = await connect({ home: ws.home, args: ['--root', ws.root, '--output-schemas'] });
    const { tools } = await s.client.listTools();
    const ajv = makeAjv();
    validators = Object.fromEntries(tools.map((t) => [t.name, ajv.compile(t.outputSchema)]));
  });
  after(async () => {
    await s.close();
    ws.cleanup();
  });

  let claimId;

  test('status on an empty store says nothing is recorded yet', async () => {
    const r = await ok('status');
    const e = r.structuredContent.envelope;
    assert.equal(e.trust_mode, 'needs_index');
    assert.equal(e.binding.root, ws.root);
    assert.equal(e.binding.source, '--root');
    // The envelope names MCP tools, not LSP methods.
    assert.equal(e.next_suggested, 'remember');
    assert.equal(e.recovery.method, 'remember');
    assert.equal(e.observed.method, 'status');
  });

  test('remember records an anchored claim', async () => {
    const r = await ok('remember', {
      text: 'TokenValidator.validate does not raise on expired tokens; callers must check .ok',
      label: 'token-validator-silent',
      kind: 'gotcha',
      confidence: 0.8,
      tags: ['auth'],
      agent: 'claude:tester',
      anchors: [{ path: 'src/auth.py', symbol: 'TokenValidator.validate' }],
      evidence: [{ type: 'path', value: 'src/auth.py' }],
    });
    const c = r.structuredContent.claim;
    claimId = c.id;
    assert.match(claimId, /^c-/);
    assert.equal(c.source_agent, 'claude:tester');
    assert.equal(c.anchors[0].symbol, 'TokenValidator.validate');
    assert.equal(r.structuredContent.superseded, null);
    assert.ok(textOf(r).includes(claimId));
    assert.ok(fs.existsSync(path.join(ws.root, '.engram/claims', `${claimId}.md`)));
  });

  test('remember without agent records the MCP client as the author', async () => {
    const r = await ok('remember', { text: 'The pool size is ten connections', label: 'pool-size', anchors: [{ path: 'src/db.py' }] });
    assert.equal(r.structuredContent.claim.source_agent, 'mcp:engram-tests');
  });

  test('recall finds the claim, differently worded, with its anchor state', async () => {
    const r = await ok('recall', { query: 'expired token validation', path: 'src/auth.py' });
    const row = r.structuredContent.rows[0];
    assert.equal(row.id, claimId);
    assert.equal(row.anchor_state, 'intact');
    assert.equal(row.tier, 'project');
    assert.equal(r.structuredContent.envelope.trust_mode, 'full_trust');
    assert.ok(textOf(r).includes(claimId) && textOf(r).includes('intact'));
  });

  test('recall that matches nothing says how much memory exists', async () => {
    const r = await ok('recall', { query: 'kubernetes helm chart' });
    assert.equal(r.structuredContent.rows.length, 0);
    assert.equal(r.structuredContent.memory_exists.project.live, 2);
    assert.ok(r.structuredContent.why_empty);
    assert.match(textOf(r), /No claim matched/);
    assert.match(textOf(r), /project 2 live/);
  });

  test('get shows the claim with per-anchor state', async () => {
    const r = await ok('get', { id: claimId });
    assert.equal(r.structuredContent.claim.anchors[0].state, 'intact');
    assert.equal(r.structuredContent.claim.tier, 'project');
    assert.deepEqual(r.structuredContent.history, []);
  });

  test('learn records a verdict', async () => {
    const r = await ok('learn', { id: claimId, verdict: 'correct', note: 'held in review' });
    assert.equal(r.structuredContent.feedback.correct, 1);
    assert.match(textOf(r), /1 correct/);
  });

  test('resolve settles a claim a merge left diverged', async () => {
    const r = await ok('remember', { text: 'The pool holds 10 connections', label: 'pool-size-merge' });
    const id = r.structuredContent.claim.id;
    // What engram's merge driver writes when two branches superseded one
    // claim: the other version, a whole claim file on one escaped line.
    const file = path.join(ws.root, '.engram', 'claims', `${id}.md`);
    const mine = fs.readFileSync(file, 'utf8');
    const theirs = mine.replace('version: 1', 'version: 2').replace('The pool holds 10', 'The pool holds 20');
    const escaped = theirs.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
    const end = mine.indexOf('\n---\n', 4);
    fs.writeFileSync(file, `${mine.slice(0, end)}\ndiverged: ${escaped}${mine.slice(end)}`);
    const v = await ok('resolve', { id });
    assert.equal(v.structuredContent.claim.diverged, undefined);
    assert.match(textOf(v), /^Resolved/);
  });

  test('anchors lists the claims anchored in a file', async () => {
    const r = await ok('anchors', { path: 'src/auth.py' });
    const a = r.structuredContent.anchors;
    assert.equal(r.structuredContent.path, 'src/auth.py');
    assert.equal(a.length, 1);
    assert.equal(a[0].claim_id, claimId);
    assert.equal(a[0].anchor_state, 'intact');
    assert.equal(a[0].range.start.line, 11); // `def validate` is line 12
    assert.match(textOf(r), /lines 12-16 TokenValidator.validate \[intact\]/);
  });

  test('an edit to the anchored code drifts the claim; reverify re-stamps it', async () => {
    const file = path.join(ws.root, 'src/auth.py');
    const code = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, code.replace('reason="expired"', 'reason="token expired"'));
    let r = await ok('recall', { query: 'expired token' });
    assert.equal(r.structuredContent.rows.find((row) => row.id === claimId).anchor_state, 'drifted');
    assert.match(textOf(r), /UNVERIFIED/);
    // The check tool reports it as engram check would, on the symbol's range.
    r = await ok('check', { path: 'src/auth.py' });
    const drift = r.structuredContent.findings.find((f) => f.code === 'engram.drifted');
    assert.ok(drift, JSON.stringify(r.structuredContent));
    assert.equal(drift.claim_id, claimId);
    assert.equal(drift.path, 'src/auth.py');
    assert.equal(drift.range.start.line, 11);
    assert.equal(r.structuredContent.summary['engram.drifted'], 1);
    assert.match(textOf(r), /src\/auth.py:12:\d+: warning: engram.drifted/);
    r = await ok('anchors', { path: 'src/auth.py' });
    assert.equal(r.structuredContent.anchors[0].anchor_state, 'drifted');
    r = await ok('reverify', { id: claimId, note: 'still true after the message change' });
    assert.equal(r.structuredContent.claim.anchor_state, 'intact');
    assert.ok(r.structuredContent.claim.verified);
    r = await ok('status');
    assert.deepEqual(r.structuredContent.anchor_health, { intact: 2, drifted: 0, moved: 0, orphaned: 0, unjudged: 0 });
  });

  test('reverify_file stamps the references of an instruction file that resolve', async () => {
    fs.writeFileSync(path.join(ws.root, 'AGENTS.md'),
      'Tokens go through `src/auth.py#TokenValidator.validate`.\nSee `src/auth.py#Gone`.\n');
    const c = await ok('check', { path: 'AGENTS.md' });
    assert.deepEqual(c.structuredContent.findings.map((f) => [f.code, f.range.start.line, f.subject]),
      [['engram.dangling', 1, 'ref:src/auth.py#Gone']]);
    const r = await ok('reverify_file', { file: 'AGENTS.md' });
    assert.equal(r.structuredContent.file, 'AGENTS.md');
    assert.equal(r.structuredContent.stamped, 1);
    assert.equal(r.structuredContent.refused.length, 1);
    assert.match(r.structuredContent.refused[0], /AGENTS.md:2 `src\/auth.py#Gone`: dangling/);
    assert.ok(fs.existsSync(path.join(ws.root, '.engram', 'verified', 'AGENTS.md.stamps')));
    fs.rmSync(path.join(ws.root, 'AGENTS.md'));
  });

  test('remember under a live label supersedes it and keeps the history', async () => {
    const r = await ok('remember', {
      text: 'TokenValidator.validate returns ok=False with reason "token expired" for expired tokens',
      label: 'token-validator-silent',
      kind: 'gotcha',
      confidence: 0.9,
      anchors: [{ path: 'src/auth.py', symbol: 'validate' }],
    });
    assert.equal(r.structuredContent.claim.id, claimId);
    assert.equal(r.structuredContent.claim.version, 2);
    assert.equal(r.structuredContent.superseded.version, 1);
    const g = await ok('get', { id: claimId });
    assert.equal(g.structuredContent.history.length, 1);
  });

  test('retract withdraws the claim from recall but keeps it', async () => {
    const r = await ok('retract', { id: claimId, reason: 'validator rewritten' });
    assert.equal(r.structuredContent.claim.status, 'retracted');
    let rc = await ok('recall', { query: 'expired token' });
    assert.ok(!rc.structuredContent.rows.some((row) => row.id === claimId));
    rc = await ok('recall', { query: 'expired token', include: ['retracted'] });
    assert.ok(rc.structuredContent.rows.some((row) => row.id === claimId && row.status === 'retracted'));
  });

  test('the medulla tier is written and recalled beside the project', async () => {
    await ok('remember', { text: 'Prefer early returns over nested conditionals', kind: 'preference', tier: 'medulla' });
    const r = await ok('recall', { query: 'early returns' });
    assert.equal(r.structuredContent.rows[0].tier, 'medulla');
  });

  test('promote copies a project claim into the medulla and stamps the witness', async () => {
    const learned = await ok('remember', { text: 'Bound every retry loop with a deadline', kind: 'convention' });
    const id = learned.structuredContent.claim.id;
    const r = await ok('promote', { id, reason: 'holds in every service' });
    const copy = r.structuredContent.medulla_copy;
    assert.notEqual(copy.id, id);
    assert.equal(r.structuredContent.witness.promoted_to, copy.id);
    assert.match(copy.origin_claim, new RegExp(`:${id}$`));
    assert.match(textOf(r), /Promoted/);
    const again = await ok('recall', { query: 'retry deadline', tier: 'medulla' });
    assert.equal(again.structuredContent.rows[0].id, copy.id);
    assert.match(again.structuredContent.rows[0].provenance, /promoted by .*: holds in every service/);
    const missing = await s.call('promote', { id });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /reason/);
  });

  test('delegate, verify_packet, contribute and review: a sub-agent round trip', async () => {
    await ok('remember', { text: 'The connection pool must be closed before fork', label: 'pool-fork' });
    const d = await ok('delegate', { task: 'change the connection pool', max_items: 3, sign: true });
    const packet = d.structuredContent.packet;
    assert.ok(packet.items.length >= 1 && packet.items.length <= 3);
    assert.ok(packet.items.some((it) => it.text === 'The connection pool must be closed before fork'));
    const v = await ok('verify_packet', { packet });
    assert.equal(v.structuredContent.valid, true);
    const tampered = structuredClone(packet);
    tampered.items[0].text = 'something else';
    const bad = await ok('verify_packet', { packet: tampered });
    assert.equal(bad.structuredContent.valid, false);
    assert.ok(bad.structuredContent.reasons.length > 0);

    const c = await ok('contribute', {
      packet_id: packet.packet_id,
      items: [
        { text: 'The pool also reopens lazily after fork' },
        { text: 'The connection pool must not be closed before fork', label: 'pool-fork' },
      ],
    });
    const [found, contra] = c.structuredContent.items;
    assert.equal(found.status, 'stored');
    assert.equal(contra.conflict, true);
    assert.match(textOf(c), /CONFLICTS/);
    const hidden = await ok('recall', { query: 'reopens lazily' });
    assert.ok(!hidden.structuredContent.rows.some((row) => row.text === 'The pool also reopens lazily after fork'));
    const r = await ok('review', { contribution_id: found.contribution_id, decision: 'accept', reason: 'checked' });
    assert.equal(r.structuredContent.claim.status, 'committed');
    const shown = await ok('recall', { query: 'reopens lazily' });
    assert.ok(shown.structuredContent.rows.some((row) => row.text === 'The pool also reopens lazily after fork'));

    const wrong = await s.call('review', { contribution_id: found.contribution_id, decision: 'maybe', reason: 'x' });
    assert.equal(wrong.isError, true);
    assert.match(textOf(wrong), /decision/);
  });

  test('report files into the project inbox once; an answer moves it; a secret is refused', async () => {
    const args = {
      class: 'memory_misdelivery',
      kind: 'false_absence',
      what: "recall for 'pool size' said nothing",
      expected: 'the pool claim',
      excerpt: "recall({query: 'pool size'})",
    };
    const first = await ok('report', args);
    const id = first.structuredContent.report.id;
    assert.match(id, /^r-[0-9a-f]{16}$/);
    assert.equal(first.structuredContent.box, path.join(ws.root, '.engram', 'inbox.jsonl'));
    assert.equal(first.structuredContent.report.agent, 'mcp:engram-tests');
    const again = await ok('report', args);
    assert.equal(again.structuredContent.duplicate, true);
    const lines = fs.readFileSync(path.join(ws.root, '.engram', 'inbox.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]).id, id);
    const spool = fs.readFileSync(path.join(ws.home, 'reports', 'spool.jsonl'), 'utf8').trim().split('\n');
    assert.equal(spool.length, 1);

    let box = (await ok('inbox')).structuredContent.boxes[0];
    assert.equal(box.reports[0].state, 'open');
    assert.equal((await ok('status')).structuredContent.inbox.open, 1);
    await ok('report', { class: 'answer', what: 'confirmed: the index missed a rename', answers: [id], resolution: 'confirmed' });
    box = (await ok('inbox', { state: 'answered' })).structuredContent.boxes[0];
    assert.deepEqual(box.reports.map((r) => r.id), [id]);
    assert.equal(box.counts.open, 0);

    const token = 'gh' + 'p_' + 'aB3xY9kQ'.repeat(5).slice(0, 36);
    const refused = await s.call('report', { ...args, what: `the token ${token} leaked` });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /github-token/);
    assert.ok(!fs.readFileSync(path.join(ws.root, '.engram', 'inbox.jsonl'), 'utf8').includes(token));
    assert.ok(!fs.readFileSync(path.join(ws.home, 'reports', 'spool.jsonl'), 'utf8').includes(token));
  });

  test('the schemas can fail: a result with a missing field does not validate', async () => {
    const r = await s.call('get', { id: (await ok('recall', { query: 'pool size' })).structuredContent.rows[0].id });
    const broken = structuredClone(r.structuredContent);
    delete broken.claim.id;
    assert.equal(validators.get(broken), false);
    const mistyped = structuredClone(r.structuredContent);
    mistyped.claim.anchors[0].state = 'fine';
    assert.equal(validators.get(mistyped), false);
  });

  test('every tool was exercised and validated', () => {
    assert.deepEqual([...seen].sort(), TOOL_NAMES);
  });
});
