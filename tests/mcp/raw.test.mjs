// The wire below the SDK: malformed lines, batches, unknown methods,
// notifications, ids, cancellation and bursts, written byte for byte.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';

import { RawPeer, makeWorkspace } from './helpers.mjs';

describe('raw protocol', () => {
  let ws, peer;
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());
  beforeEach(() => {
    peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
  });
  afterEach(async () => {
    // After any of it, the server still answers and then exits cleanly.
    const pong = await peer.request('ping', undefined, 'last');
    assert.deepEqual(pong, { jsonrpc: '2.0', id: 'last', result: {} });
    assert.equal(await peer.close(), 0);
  });

  test('ping is answered before initialize; other requests are refused', async () => {
    assert.deepEqual((await peer.request('ping', undefined, 1)).result, {});
    const r = await peer.request('tools/list', {}, 2);
    assert.equal(r.error.code, -32600);
    assert.equal(r.error.data.kind, 'ServerNotInitialized');
  });

  test('a line that is not JSON gets a parse error, in order', async () => {
    await peer.initialize();
    peer.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{not json\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    assert.equal((await peer.next()).id, 1);
    const err = await peer.next();
    assert.equal(err.id, null);
    assert.equal(err.error.code, -32700);
    assert.match(err.error.message, /^the line is not valid JSON: parse error at line 1, column 3/);
    assert.equal((await peer.next()).id, 2);
  });

  test('a line that does not parse is answered with its id when the line shows one', async () => {
    await peer.initialize();
    // Invalid UTF-8 in a string, the id last (as the SDKs write it).
    peer.proc.stdin.write(Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"recall","arguments":{"query":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}},"id":41}\n'),
    ]));
    let err = await peer.next();
    assert.equal(err.id, 41);
    assert.equal(err.error.code, -32700);
    assert.match(err.error.message, /^the line is not valid JSON: .*UTF-8/);
    // Truncated, the id first: still answered to it.
    peer.write('{"jsonrpc":"2.0","id":"t-1","method":"tools/call","params":{"name":"rec\n');
    err = await peer.next();
    assert.equal(err.id, 't-1');
    assert.equal(err.error.code, -32700);
    // Truncated before any id: nothing to answer to but null.
    peer.write('{"jsonrpc":"2.0","method":"tools/ca\n');
    err = await peer.next();
    assert.equal(err.id, null);
  });

  test('unknown methods get -32601; unknown notifications get nothing', async () => {
    await peer.initialize();
    const r = await peer.request('completion/complete', {}, 7);
    assert.equal(r.error.code, -32601);
    assert.match(r.error.message, /unknown method 'completion\/complete'/);
    peer.send({ jsonrpc: '2.0', method: 'notifications/whatever', params: {} });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send({ jsonrpc: '2.0', method: 'tools/list' }); // a notification: no id, no answer
    const pong = await peer.request('ping', undefined, 8);
    assert.equal(pong.id, 8, 'the first thing back answers the ping');
  });

  test('invalid requests name what is wrong', async () => {
    await peer.initialize();
    const cases = [
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, /id: must be a string or an integer/],
      [{ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, /id: must be a string or an integer/],
      [{ jsonrpc: '2.0', id: 3 }, /method: is required/],
      [{ jsonrpc: '2.0', id: 4, method: 5 }, /method: expected a string/],
      [{ id: 5, method: 'ping' }, /jsonrpc: must be "2.0"/],
      [[], /batch/],
      [42, /must be an object/],
    ];
    for (const [msg, pattern] of cases) {
      peer.send(msg);
      const r = await peer.next();
      assert.equal(r.error.code, -32600, JSON.stringify(msg));
      assert.match(r.error.message, pattern);
    }
    const p = await peer.request('tools/list', [1, 2], 6);
    assert.equal(p.error.code, -32602);
    assert.match(p.error.message, /^params: expected an object, got an array/);
    const again = await peer.request('initialize', { protocolVersion: '2025-11-25' }, 9);
    assert.equal(again.error.code, -32600);
    assert.match(again.error.message, /already/);
    const cursor = await peer.request('tools/list', { cursor: 'page-2' }, 10);
    assert.equal(cursor.error.code, -32602);
    assert.equal(cursor.error.data.field, 'cursor');
  });

  test('batches: refused from 2025-06-18 on', async () => {
    await peer.initialize('2025-06-18');
    peer.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    const r = await peer.next();
    assert.equal(r.error.code, -32600);
    assert.match(r.error.message, /batches are not part of MCP 2025-06-18/);
  });

  test('batches: answered as one array under 2025-03-26, notifications left out', async () => {
    await peer.initialize('2025-03-26');
    peer.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'status', arguments: {} } },
    ]);
    const r = await peer.next();
    assert.ok(Array.isArray(r));
    assert.deepEqual(r.map((x) => x.id), [1, 2, 3]);
    assert.equal(r[1].error.code, -32601);
    assert.ok(r[2].result.content[0].text.includes(ws.root));
  });

  test('string ids, CRLF line ends and blank lines are fine', async () => {
    await peer.initialize();
    peer.write('\n  \r\n{"jsonrpc":"2.0","id":"a-1","method":"ping"}\r\n');
    assert.equal((await peer.next()).id, 'a-1');
  });

  test('a cancelled request that has not run gets no answer', async () => {
    await peer.initialize();
    // One write: the server reads the call and its cancellation together.
    peer.write(
      JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'status', arguments: {} } }) +
        '\n' +
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41, reason: 'changed my mind' } }) +
        '\n',
    );
    const pong = await peer.request('ping', undefined, 42);
    assert.equal(pong.id, 42, 'nothing answered the cancelled call');
  });

  test('oversized lines are skipped without buffering; the id is found at either end', async () => {
    await peer.initialize();
    const pad = 'z'.repeat(17 * 1024 * 1024);
    peer.write(`{"jsonrpc":"2.0","id":"head","method":"tools/call","params":{"name":"remember","arguments":{"text":"${pad}"}}}\n`);
    let r = await peer.next();
    assert.equal(r.id, 'head');
    assert.equal(r.error.code, -32600);
    assert.equal(r.error.data.limit, 16 * 1024 * 1024);
    peer.write(`{"method":"tools/call","params":{"name":"remember","arguments":{"text":"${pad}"}},"jsonrpc":"2.0","id":77}\n`);
    r = await peer.next();
    assert.equal(r.id, 77);
    peer.write(`["${pad}"]\n`);
    r = await peer.next();
    assert.equal(r.id, null);
  });

  test('a burst written before reading any reply is answered in full', async () => {
    await peer.initialize();
    let burst = '';
    for (let i = 0; i < 300; i++) burst += JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }) + '\n';
    peer.write(burst);
    for (let i = 0; i < 300; i++) assert.equal((await peer.next()).id, i);
  });
});
