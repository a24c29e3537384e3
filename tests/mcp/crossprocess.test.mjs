// One workspace, several processes: `engram mcp` beside a running
// `engram serve`, the CLI, and files changed behind everyone's back (a git
// pull, a hand edit). Each sees the others' writes on its next call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { LspPeer, cli, connect, makeWorkspace, textOf } from './helpers.mjs';

describe('cross-process visibility', () => {
  let ws, mcp, lsp;

  async function mcpRecall(query) {
    const r = await mcp.call('recall', { query, limit: 50 });
    assert.notEqual(r.isError, true, textOf(r));
    return r.structuredContent.rows;
  }

  before(async () => {
    ws = makeWorkspace();
    lsp = new LspPeer({ home: ws.home, root: ws.root });
    await lsp.start();
    mcp = await connect({ home: ws.home, args: ['--root', ws.root] });
  });
  after(async () => {
    await mcp.close();
    assert.equal(await lsp.stop(), 0);
    ws.cleanup();
  });

  test('a claim written through MCP is visible to the running engram serve', async () => {
    const r = await mcp.call('remember', {
      text: 'The database pool holds ten connections; release them with close()',
      label: 'db-pool',
      anchors: [{ path: 'src/db.py' }],
    });
    assert.notEqual(r.isError, true, textOf(r));
    const id = r.structuredContent.claim.id;
    const recall = await lsp.call('engram/recall', { query: 'database pool connections' });
    assert.ok(recall.rows.some((row) => row.id === id), JSON.stringify(recall.rows));
    const got = await lsp.call('engram/get', { id });
    assert.equal(got.claim.label, 'db-pool');
  });

  test('a claim written through engram serve is visible through MCP', async () => {
    const written = await lsp.call('engram/remember', {
      text: 'Session tokens in web/session.ts expire after fifteen minutes of idleness',
      label: 'session-idle',
      agent: 'human:editor',
      anchors: [{ path: 'web/session.ts' }],
    });
    const id = written.claim.id;
    const rows = await mcpRecall('session idle expiry');
    assert.ok(rows.some((row) => row.id === id));
    const g = await mcp.call('get', { id });
    assert.equal(g.structuredContent.claim.source_agent, 'human:editor');
  });

  test('MCP sees what the CLI writes, and the CLI what MCP writes', async () => {
    const out = cli(['--root', ws.root, '--json', 'remember', 'Retries back off exponentially up to one minute', '--label', 'retry-backoff'], { home: ws.home });
    assert.equal(out.code, 0, out.stderr);
    const id = JSON.parse(out.stdout).claim.id;
    assert.ok((await mcpRecall('retries back off')).some((row) => row.id === id));

    const r = await mcp.call('learn', { id, verdict: 'wrong', note: 'it is two minutes now' });
    assert.notEqual(r.isError, true, textOf(r));
    const shown = cli(['--root', ws.root, '--json', 'get', id], { home: ws.home });
    assert.equal(JSON.parse(shown.stdout).claim.feedback.wrong, 1);
  });

  test('a retraction through MCP reaches engram serve', async () => {
    const id = (await mcpRecall('database pool'))[0].id;
    const r = await mcp.call('retract', { id, reason: 'pool moved to a library' });
    assert.notEqual(r.isError, true, textOf(r));
    const recall = await lsp.call('engram/recall', { query: 'database pool connections' });
    assert.ok(!recall.rows.some((row) => row.id === id));
  });

  test('claim files changed by hand or by git are picked up', async () => {
    const claims = path.join(ws.root, '.engram/claims');
    const [sample] = fs.readdirSync(claims).filter((f) => f.endsWith('.md'));
    const original = fs.readFileSync(path.join(claims, sample), 'utf8');

    // A new file arrives (a pull): written aside and renamed in, as git does.
    const newId = 'c-pulledfromgit';
    const pulled = original
      .replace(/^id: .*$/m, `id: ${newId}`)
      .replace(/^label: .*$/m, 'label: pulled-claim')
      .replace(/^status: .*$/m, 'status: committed')
      .replace(/\n---\n[\s\S]*$/, '\n---\nFeature flags are read once at start-up from flags.yaml\n');
    fs.writeFileSync(path.join(claims, `.${newId}.tmp`), pulled);
    fs.renameSync(path.join(claims, `.${newId}.tmp`), path.join(claims, `${newId}.md`));
    let rows = await mcpRecall('feature flags start-up');
    assert.ok(rows.some((row) => row.id === newId), 'the pulled claim is recalled');

    // A person edits it in place.
    const edited = fs.readFileSync(path.join(claims, `${newId}.md`), 'utf8').replace('flags.yaml', 'features.toml');
    fs.writeFileSync(path.join(claims, `${newId}.md`), edited);
    rows = await mcpRecall('features.toml');
    assert.ok(rows.some((row) => row.id === newId && row.text.includes('features.toml')), 'the edit is seen');

    // And removes it.
    fs.rmSync(path.join(claims, `${newId}.md`));
    const g = await mcp.call('get', { id: newId });
    assert.equal(g.isError, true);
    assert.match(textOf(g), /^UnknownClaim/);
    rows = await mcpRecall('features.toml');
    assert.ok(!rows.some((row) => row.id === newId));
  });
});
