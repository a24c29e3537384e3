// Bad calls through the SDK client: each answered as the specification
// says, naming the field, and the server keeps serving.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { TIMEOUT_MS, connect, makeWorkspace, textOf } from './helpers.mjs';

describe('errors', () => {
  let ws, s;

  // A tool error: a result with isError the model reads, not a protocol
  // error. Returns its text.
  async function toolError(name, args, pattern) {
    const r = await s.call(name, args);
    assert.equal(r.isError, true, `${name} should fail: ${textOf(r)}`);
    assert.equal(r.structuredContent, undefined);
    assert.match(textOf(r), pattern);
    return textOf(r);
  }

  before(async () => {
    ws = makeWorkspace();
    s = await connect({ home: ws.home, args: ['--root', ws.root] });
  });
  after(async () => {
    // Whatever came before, the server still answers.
    await s.client.ping();
    const r = await s.call('status');
    assert.equal(r.structuredContent.envelope.binding.root, ws.root);
    await s.close();
    ws.cleanup();
  });

  test('unknown tool: a protocol error (-32602) naming the field', async () => {
    await assert.rejects(s.call('forget', {}), (e) => {
      assert.ok(e instanceof McpError);
      assert.equal(e.code, -32602);
      assert.match(e.message, /name: unknown tool 'forget'; the tools are .*recall/);
      assert.equal(e.data.field, 'name');
      return true;
    });
  });

  test('missing argument', async () => {
    await toolError('remember', { label: 'x' }, /^InvalidParams: text: is required/);
    await toolError('get', {}, /^InvalidParams: id: is required/);
    await toolError('retract', { id: 'c-000000000000' }, /^InvalidParams: reason: is required/);
    await toolError('anchors', {}, /^InvalidParams: path: is required/);
  });

  test('mistyped argument', async () => {
    await toolError('recall', { query: 'x', limit: 'ten' }, /^InvalidParams: limit: expected an integer, got a string/);
    await toolError('remember', { text: 'x', tags: 'auth' }, /tags: expected an array, got a string/);
    await toolError('remember', { text: 'x', anchors: [{ path: 7 }] }, /anchors\[0\]\.path: expected a string, got a number/);
    await toolError('learn', { id: 'c-000000000000', verdict: 'maybe' }, /verdict: must be correct, wrong or partial/);
    await toolError('recall', { kinds: ['rumour'] }, /kinds\[0\]: must be fact, decision, convention, gotcha, preference or todo/);
    await toolError('status', { root: 42 }, /root: expected a string, got a number/);
  });

  test('oversized and out-of-range arguments', async () => {
    await toolError('remember', { text: 'x'.repeat(20000) }, /^InvalidParams: text: is longer than 16384 bytes/);
    await toolError('remember', { text: 'ok', label: 'l'.repeat(500) }, /label: is longer than 120 bytes/);
    await toolError('recall', { query: 'x', limit: 500 }, /limit: must be between 1 and 200/);
    await toolError('remember', { text: 'ok', confidence: 7 }, /confidence: must be a number in \[0, 1\]/);
  });

  test('engine refusals are tool errors with their kind', async () => {
    await toolError('get', { id: 'c-000000000000' }, /^UnknownClaim: /);
    await toolError('get', { id: '../../etc/passwd' }, /id: '..\/..\/etc\/passwd' is not a claim id/);
    await toolError('anchors', { path: '../outside.py' }, /^OutsideRoot: path: /);
    await toolError('remember', { text: 'x', anchors: [{ path: 'src/auth.py', symbol: 'NoSuchThing' }] }, /^AnchorNotFound: /);
    const secret = 'AKIA' + 'ABCDEFGHIJKLMNOP';
    const text = await toolError('remember', { text: `the key is ${secret}` }, /^SecretDetected: text: /);
    assert.ok(!text.includes(secret), 'the secret is never echoed');
  });

  test('a downgrade is refused and can be forced with a reason', async () => {
    await s.call('remember', { text: 'Sessions last 30 minutes', label: 'session-ttl', confidence: 0.9 });
    const t = await toolError('remember', { text: 'Sessions last 20 minutes', label: 'session-ttl', confidence: 0.5 }, /^WouldDowngrade: /);
    assert.match(t, /force_reason/);
    const r = await s.call('remember', { text: 'Sessions last 20 minutes', label: 'session-ttl', confidence: 0.5, force_reason: 'config changed' });
    assert.notEqual(r.isError, true, textOf(r));
  });

  test('malformed tools/call params are protocol errors naming the field', async () => {
    const bad = (params) => s.client.request({ method: 'tools/call', params }, CallToolResultSchema);
    await assert.rejects(bad({ name: 'status', arguments: 'all' }), (e) => e.code === -32602 && /^MCP error -32602: arguments: expected an object/.test(e.message));
    await assert.rejects(bad({ arguments: {} }), (e) => e.code === -32602 && /name: is required/.test(e.message));
  });

  test('a broken character (a lone surrogate escape) gets a parse error with the call\'s id, not a hang', async () => {
    // JSON.stringify writes a lone UTF-16 surrogate (half an emoji cut by
    // truncation) as the escape \ud83d, which is not Unicode: the line does
    // not parse. Answered with id null, the SDK would match no call and wait
    // for its timeout; with the id, the call fails at once, saying why.
    const started = Date.now();
    await assert.rejects(s.call('remember', { text: 'cut emoji \ud83d here' }), (e) => {
      assert.ok(e instanceof McpError);
      assert.equal(e.code, -32700, e.message);
      assert.match(e.message, /the line is not valid JSON: .*surrogate/);
      return true;
    });
    assert.ok(Date.now() - started < TIMEOUT_MS / 2, 'answered, not timed out');
    const r = await s.call('recall', { query: 'emoji' });
    assert.notEqual(r.isError, true);
  });

  test('a message over the line limit is refused with its id; the server goes on', async () => {
    const huge = 'y'.repeat(17 * 1024 * 1024);
    await assert.rejects(s.call('remember', { text: huge }), (e) => {
      assert.equal(e.code, -32600);
      assert.match(e.message, /over the limit of 16777216 bytes; it was skipped/);
      return true;
    });
    const r = await s.call('recall', { query: 'sessions' });
    assert.notEqual(r.isError, true);
  });
});
