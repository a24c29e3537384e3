// What an agent reads back through the SDK client: answers that never claim
// an absence that is not one, never grow with what was asked, and say the
// same thing in text and in structured content.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { connect, makeWorkspace, textOf } from './helpers.mjs';

describe('answers', () => {
  let ws, s;

  async function ok(name, args = {}) {
    const r = await s.call(name, args);
    assert.notEqual(r.isError, true, `${name} failed: ${textOf(r)}`);
    return r;
  }

  before(async () => {
    ws = makeWorkspace();
    s = await connect({ home: ws.home, args: ['--root', ws.root] });
    await ok('remember', {
      text: 'Session tokens are refreshed ten minutes before they expire',
      label: 'token-refresh',
      anchors: [{ path: 'src/auth.py' }],
    });
  });
  after(async () => {
    await s.close();
    ws.cleanup();
  });

  test('a recall whose every match is over max_chars says they matched, not that none did', async () => {
    const r = await ok('recall', { query: 'session tokens refreshed', max_chars: 1 });
    assert.equal(r.structuredContent.rows.length, 0);
    assert.equal(r.structuredContent.truncated, true);
    const why = r.structuredContent.why_empty;
    assert.doesNotMatch(why, /none matched/);
    assert.match(why, /^1 claim matched, but the best match's text alone is 59 characters, over max_chars 1; raise max_chars to at least 59$/);
    assert.match(textOf(r), /1 claim matched/);
    assert.doesNotMatch(textOf(r), /none matched/);
  });

  test('an empty recall quotes a long query short: the answer does not grow with the question', async () => {
    const query = 'zzqxv '.repeat(100000); // 600 KB of a word nothing holds
    const r = await ok('recall', { query });
    assert.equal(r.structuredContent.rows.length, 0);
    assert.match(r.structuredContent.why_empty, /none matched the query 'zzqxv zzqxv .*\.\.\.'/);
    const bytes = JSON.stringify(r).length;
    assert.ok(bytes < 8 * 1024, `the answer is ${bytes} bytes`);
  });

  test('a one-line anchor reads as that line in the anchors tool and the file resource', async () => {
    // Line 13 of src/auth.py, 1-based as people write it.
    await ok('remember', {
      text: 'The expiry check compares against the injected clock',
      label: 'expiry-clock',
      anchors: [{ path: 'src/auth.py', range: { start_line: 13, end_line: 13 } }],
    });
    const wanted = /- line 13 +\[intact\] .*"expiry-clock"/;
    const r = await ok('anchors', { path: 'src/auth.py' });
    assert.match(textOf(r), wanted);
    assert.doesNotMatch(textOf(r), /lines 13-14/);
    const res = await s.client.readResource({ uri: 'engram://file/src%2Fauth.py' });
    const text = res.contents.find((c) => c.mimeType === 'text/plain').text;
    assert.match(text, wanted);
  });

  test('remember answers with the claims it probably contradicts or restates, in text and structured content', async () => {
    const first = await ok('remember', { text: 'The webhook retry queue holds 500 events', label: 'webhook-queue' });
    const id = first.structuredContent.claim.id;
    const other = await ok('remember', { text: 'The webhook retry queue holds 900 events' });
    assert.deepEqual(other.structuredContent.related.map((r) => [r.id, r.relation]), [[id, 'contradicts']]);
    assert.match(textOf(other), new RegExp(`contradicts ${id} "webhook-queue"`));
    const again = await ok('remember', { text: 'the webhook retry queue holds 500 events at most' });
    assert.deepEqual(again.structuredContent.related.map((r) => [r.id, r.relation]), [[id, 'restates']]);
    assert.match(textOf(again), /keep one: retract the one that no longer holds/);
    // The tool's description tells an agent to supersede rather than add.
    const tools = await s.client.listTools();
    const remember = tools.tools.find((t) => t.name === 'remember');
    assert.match(remember.description, /remember under its label/);
  });

  test('a conflict on one anchor does not say writes are refused, and they are not', async () => {
    const on = [{ path: 'src/auth.py', symbol: 'TokenValidator.validate' }];
    await ok('remember', { text: 'validate must raise for expired tokens', label: 'expired-a', anchors: on });
    await ok('remember', { text: 'validate must not raise for expired tokens', label: 'expired-b', anchors: on });
    const r = await ok('check');
    const conflicts = r.structuredContent.findings.filter((f) => f.code === 'engram.conflict');
    assert.equal(conflicts.length, 2, JSON.stringify(r.structuredContent.findings));
    for (const f of conflicts) {
      assert.match(f.message, /retract or supersede the wrong one; claim/);
      assert.doesNotMatch(f.message, /refused/);
    }
    // What the message no longer promises: both labels still take writes.
    await ok('remember', { text: 'validate must not raise for expired tokens: it returns ok=False', label: 'expired-b', anchors: on });
    await ok('remember', { text: 'validate must raise for expired tokens, callers catch it', label: 'expired-a', anchors: on });
  });

  test('include superseded shows what a correction replaced, and status counts it', async () => {
    const before = (await ok('status')).structuredContent.envelope.store[0].claims.superseded;
    await ok('remember', { text: 'The pool holds ten connections', label: 'pool-size' });
    await ok('remember', { text: 'The pool holds twenty connections since the load test', label: 'pool-size' });
    let r = await ok('recall', { query: 'pool connections' });
    assert.equal(r.structuredContent.rows[0].superseded_versions, undefined, 'not by default');
    r = await ok('recall', { query: 'pool connections', include: ['superseded'] });
    const row = r.structuredContent.rows[0];
    assert.equal(row.label, 'pool-size');
    assert.equal(row.version, 2);
    assert.deepEqual(row.superseded_versions.map((v) => [v.version, v.text, v.status]),
      [[1, 'The pool holds ten connections', 'superseded']]);
    assert.match(textOf(r), /SUPERSEDED v1 \(by [^)]*\): The pool holds ten connections/);
    const after = (await ok('status')).structuredContent.envelope.store[0].claims.superseded;
    assert.equal(after, before + 1);
  });

  test('a contribution refused for a secret says why in the text, never the secret', async () => {
    const secret = 'AKIA' + 'ABCDEFGHIJKLMNOP';
    const r = await s.call('contribute', {
      items: [{ text: `the deploy key is ${secret}` }, { text: 'The pool is sized by POOL_MAX' }],
    });
    // The call answers for every item (the second is stored): not a tool error.
    assert.notEqual(r.isError, true, textOf(r));
    const text = textOf(r);
    const reason = r.structuredContent.items[0].refused.reason;
    assert.ok(reason.length > 0);
    assert.match(text, new RegExp(`^item 0: refused: ${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.match(text, /^item 1: stored as k-/m);
    assert.ok(!text.includes(secret), 'the secret is never echoed');
  });

  test('anchors takes a uri alone, as its schema says', async () => {
    const { tools } = await s.client.listTools();
    const schema = tools.find((t) => t.name === 'anchors').inputSchema;
    assert.ok(!(schema.required ?? []).includes('path'), JSON.stringify(schema.required));
    const r = await ok('anchors', { uri: `file://${ws.root}/src/auth.py` });
    assert.equal(r.structuredContent.path, 'src/auth.py');
    assert.ok(r.structuredContent.anchors.length > 0);
  });

  test('a correction under the same label supersedes, as the instructions advise, at the claim\'s confidence', async () => {
    assert.match(s.client.getInstructions(), /remember the corrected version under the same label/);
    const first = await ok('remember', { text: 'Sessions last 30 minutes', label: 'session-length', confidence: 0.9 });
    const r = await ok('remember', { text: 'Sessions last 20 minutes since the config change', label: 'session-length' });
    assert.equal(r.structuredContent.claim.id, first.structuredContent.claim.id);
    assert.equal(r.structuredContent.claim.version, 2);
    assert.equal(r.structuredContent.claim.confidence, 0.9);
    // Saying it is less sure is still a downgrade, refused without a reason.
    const weaker = await s.call('remember', { text: 'Sessions last 10 minutes', label: 'session-length', confidence: 0.4 });
    assert.equal(weaker.isError, true);
    assert.match(textOf(weaker), /^WouldDowngrade: /);
  });

  test('review takes a contribution by the claim id recall shows, and says when a claim is not one', async () => {
    const c = await ok('contribute', { items: [{ text: 'The cache is warmed at start-up by warm_cache()', label: 'cache-warm' }] });
    const item = c.structuredContent.items[0];
    const rows = (await ok('recall', { query: 'cache warmed start-up', include: ['frontier'] })).structuredContent.rows;
    const row = rows.find((r) => r.label === 'cache-warm');
    assert.equal(row.id, item.claim_id);
    assert.match(row.id, /^c-/);
    const r = await ok('review', { contribution_id: row.id, decision: 'accept', reason: 'checked' });
    assert.equal(r.structuredContent.claim.status, 'committed');
    const plain = await ok('remember', { text: 'Logs rotate daily', label: 'log-rotation' });
    const refused = await s.call('review', { contribution_id: plain.structuredContent.claim.id, decision: 'accept', reason: 'x' });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /contribution_id: claim c-[a-z0-9]+ is not a contribution/);
  });

  test('a moved row names where the code went, a drifted row its current lines', async () => {
    fs.writeFileSync(path.join(ws.root, 'src/moves.py'),
      'def refresh(token):\n    return token\n\n\ndef other():\n    return 2\n');
    await ok('remember', { text: 'refresh hands the token back unchanged', label: 'mv-refresh', anchors: [{ path: 'src/moves.py', symbol: 'refresh' }] });
    await ok('remember', { text: 'other answers two', label: 'mv-other', anchors: [{ path: 'src/moves.py', symbol: 'other' }] });
    fs.writeFileSync(path.join(ws.root, 'src/moves.py'),
      'def renew(token):\n    return token\n\n\ndef other():\n    x = 1\n    return 2 + x\n');
    const r = await ok('recall', { query: 'refresh token unchanged other answers two', path: 'src/moves.py' });
    const text = textOf(r);
    assert.match(text, /src\/moves\.py#refresh \[moved\] now renew at src\/moves\.py, lines 1-2/);
    assert.match(text, /src\/moves\.py#other \[drifted\] now src\/moves\.py, lines 5-7/);
    const moved = r.structuredContent.rows.find((x) => x.label === 'mv-refresh').anchors[0];
    assert.equal(moved.current.symbol, 'renew');
  });

  test('an unknown argument is refused naming it, at any depth; nothing is written', async () => {
    let r = await s.call('recall', { query: 'token', symbl: 'validate' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^InvalidParams: symbl: is not an argument here \(it takes .*symbol/);
    r = await s.call('remember', { text: 'typo in an anchor', anchors: [{ path: 'src/auth.py', symbl: 'x' }] });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^InvalidParams: anchors\[0\]\.symbl: is not an argument here/);
    const found = await ok('recall', { query: 'typo anchor' });
    assert.ok(!found.structuredContent.rows.some((x) => x.text === 'typo in an anchor'));
  });

  test('recall takes symbol, and says when a path or symbol focused nothing', async () => {
    await ok('remember', { text: 'The validator never raises on expiry', label: 'no-raise', anchors: [{ path: 'src/auth.py', symbol: 'TokenValidator.validate' }] });
    await ok('remember', { text: 'The validator module imports time for its clock', label: 'clock-import', anchors: [{ path: 'src/auth.py' }] });
    let r = await ok('recall', { query: 'validator', symbol: 'validate' });
    assert.equal(r.structuredContent.rows[0].label, 'no-raise');
    assert.ok(r.structuredContent.rows[0].why.includes('anchored to validate'));
    // Without a query, the symbol's words find its claims.
    r = await ok('recall', { symbol: 'TokenValidator.validate' });
    assert.ok(r.structuredContent.rows.some((x) => x.label === 'no-raise'));
    r = await ok('recall', { query: 'validator', path: 'src/auht.py', symbol: 'nosuch' });
    const notes = r.structuredContent.notices.join('\n');
    assert.match(notes, /path 'src\/auht\.py': no such file in the workspace/);
    assert.match(notes, /symbol 'nosuch': no claim served is anchored to it/);
    assert.match(textOf(r), /^note: path 'src\/auht\.py': no such file/m);
  });

  test('a row is not served for a path component or a word like "should" alone', async () => {
    fs.mkdirSync(path.join(ws.root, 'src/requests'), { recursive: true });
    fs.writeFileSync(path.join(ws.root, 'src/requests/utils.py'),
      'def should_bypass_proxies(url):\n    return False\n\n\ndef pool_size():\n    return 10\n');
    await ok('remember', { text: 'The connection pool holds ten sockets', label: 'pool-ten', anchors: [{ path: 'src/requests/utils.py', symbol: 'pool_size' }] });
    await ok('remember', { text: 'Proxies are skipped for hosts in no_proxy', label: 'no-proxy', anchors: [{ path: 'src/requests/utils.py', symbol: 'should_bypass_proxies' }] });
    await ok('remember', { text: 'A failed request is retried three times with backoff', label: 'retry-policy', anchors: [{ path: 'src/requests/utils.py' }] });
    const r = await ok('recall', { query: 'how does requests decide when it should retry?' });
    const labels = r.structuredContent.rows.map((x) => x.label);
    assert.ok(labels.includes('retry-policy'), JSON.stringify(labels));
    assert.ok(!labels.includes('pool-ten'), 'matched only the path');
    assert.ok(!labels.includes('no-proxy'), 'matched only "should" and the path');
    // Each row says its score and what matched.
    // A related word says which of the query's words it stands for.
    assert.match(textOf(r), /\n   score [0-9.]+: 'request' in text; 'retri' in label; 'backoff' in text \(for 'retri'\)\n/);
  });

  test('an anchor is written as the README writes it: path#symbol, path:LINE, path:START-END', async () => {
    const r = await ok('remember', {
      text: 'The validator and its expiry branch read the injected clock',
      label: 'text-anchors',
      anchors: ['src/auth.py#TokenValidator.validate', 'src/auth.py:13', 'src/auth.py:13-15', 'src/auth.py'],
    });
    const got = await ok('get', { id: r.structuredContent.claim.id });
    const anchors = got.structuredContent.claim.anchors;
    assert.equal(anchors.length, 4, JSON.stringify(anchors));
    assert.equal(anchors[0].symbol, 'TokenValidator.validate');
    // Line 13 (1-based) is inside validate: the innermost definition there.
    assert.equal(anchors[1].symbol, 'TokenValidator.validate');
    assert.deepEqual([anchors[2].range.start_line, anchors[2].range.end_line], [13, 15]);
    assert.equal(anchors[3].symbol, undefined);
    assert.equal(anchors[3].path, 'src/auth.py');
    // A line that cannot be one is refused naming the anchor, nothing written.
    for (const bad of ['src/auth.py:0', 'src/auth.py:9-3', '#validate']) {
      const e = await s.call('remember', { text: 'never written ' + bad, anchors: [bad] });
      assert.equal(e.isError, true, bad);
      assert.match(textOf(e), /^InvalidParams: anchors\[0\]: '/, bad);
    }
    const none = await ok('recall', { query: 'never written' });
    assert.equal(none.structuredContent.rows.length, 0);
  });

  test('a default recall of ten rows reads in at most 5 KB of text, and alone by default', async () => {
    const plain = await connect({ home: ws.home, args: ['--root', ws.root], structured: false });
    try {
      for (let i = 0; i < 12; i++) {
        const w = await plain.call('remember', {
          text: `Session handling note ${i}: the token refresh path holds the session lock so two tabs never ` +
            `refresh at once, and a refresh that fails leaves the old token valid until it expires`,
          label: `session-note-${i}`,
          anchors: ['src/auth.py#TokenValidator.validate'],
        });
        assert.notEqual(w.isError, true, textOf(w));
      }
      const r = await plain.call('recall', { query: 'session token refresh lock' });
      assert.equal(r.structuredContent, undefined);
      const bytes = JSON.stringify(r).length;
      assert.match(textOf(r), /^10 claims\n/);
      assert.ok(bytes <= 5 * 1024, `a recall of 10 rows is ${bytes} bytes`);
    } finally {
      await plain.close();
    }
  });

  test('a packet keeps a drifted claim with its text, marked unverified, and is checked by its id', async () => {
    fs.writeFileSync(path.join(ws.root, 'src/ledger.py'), 'def post(entry):\n    return entry\n');
    await ok('remember', { text: 'post writes the ledger entry as it was given', label: 'ledger-post', anchors: ['src/ledger.py#post'] });
    fs.writeFileSync(path.join(ws.root, 'src/ledger.py'), 'def post(entry):\n    return dict(entry, posted=True)\n');
    const d = await ok('delegate', { task: 'change how the ledger posts an entry', paths: ['src/ledger.py'] });
    const packet = d.structuredContent.packet;
    const item = packet.items.find((x) => x.label === 'ledger-post');
    assert.ok(item, JSON.stringify(packet.items.map((x) => x.label)));
    assert.equal(item.anchor_state, 'drifted');
    assert.equal(item.unverified, true);
    assert.equal(item.text, 'post writes the ledger entry as it was given');
    assert.equal(packet.honest_gaps.drifted, undefined);
    assert.match(textOf(d), /drifted \(UNVERIFIED: check it against the code\) · post writes/);
    // By its id: nothing sent back but 64 characters.
    const v = await ok('verify_packet', { packet_id: packet.packet_id });
    assert.equal(v.structuredContent.valid, true, JSON.stringify(v.structuredContent.reasons));
    assert.equal(v.structuredContent.packet_id, packet.packet_id);
    const unknown = await s.call('verify_packet', { packet_id: 'f'.repeat(64) });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /^InvalidParams: packet_id: no packet f{64} was composed on this machine lately/);
    const both = await s.call('verify_packet', { packet_id: packet.packet_id, packet });
    assert.equal(both.isError, true);
    assert.match(textOf(both), /packet_id: give either packet_id or packet, not both/);
  });
});
