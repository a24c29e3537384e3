// The workflows offered as MCP prompts, read through the SDK client: each
// runs the tool it stands for and hands the model what memory holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connect, makeWorkspace, textOf } from './helpers.mjs';

describe('prompts', () => {
  let ws, s;

  before(async () => {
    ws = makeWorkspace();
    s = await connect({ home: ws.home, args: ['--root', ws.root] });
    const r = await s.call('remember', {
      text: 'validate reports expiry through the injected clock, never time.time',
      label: 'clock-injected',
      anchors: ['src/auth.py#TokenValidator.validate'],
    });
    assert.notEqual(r.isError, true, textOf(r));
  });
  after(async () => {
    await s.close();
    ws.cleanup();
  });

  test('prompts/list offers before_task and hand_off with their arguments', async () => {
    const { prompts } = await s.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['before_task', 'hand_off']);
    const before = prompts[0];
    assert.ok(before.title);
    assert.deepEqual(before.arguments.map((a) => [a.name, a.required]), [['task', true], ['path', false], ['symbol', false]]);
  });

  test('before_task brings what recall finds for the task, and what to do with it', async () => {
    const r = await s.client.getPrompt({ name: 'before_task', arguments: { task: 'change how tokens expire', symbol: 'validate' } });
    assert.equal(r.messages.length, 1);
    const text = r.messages[0].content.text;
    assert.match(text, /^Before you start on this task: change how tokens expire/);
    assert.match(text, /"clock-injected" gotcha|"clock-injected" fact/);
    assert.match(text, /validate reports expiry through the injected clock/);
    assert.match(text, /call remember/);
  });

  test('hand_off composes a packet and says how the sub-agent checks it and reports back', async () => {
    const r = await s.client.getPrompt({ name: 'hand_off', arguments: { task: 'make token expiry configurable', paths: 'src/auth.py, src/pool.py' } });
    const text = r.messages[0].content.text;
    const id = text.match(/verify_packet \(packet_id ([0-9a-f]{64})\)/);
    assert.ok(id, text);
    assert.match(text, /contribute \(packet_id [0-9a-f]{64}\)/);
    assert.match(text, /injected clock/);
    // The packet it names is this machine's: checked by its id.
    const v = await s.call('verify_packet', { packet_id: id[1] });
    assert.equal(v.structuredContent.valid, true);
  });

  test('a missing or unknown argument and an unknown prompt are refused naming them', async () => {
    await assert.rejects(s.client.getPrompt({ name: 'before_task', arguments: {} }), /arguments\.task: is required/);
    await assert.rejects(s.client.getPrompt({ name: 'before_task', arguments: { task: 'x', file: 'a.py' } }), /arguments\.file: is not an argument of before_task/);
    await assert.rejects(s.client.getPrompt({ name: 'remember_all' }), /unknown prompt 'remember_all'/);
  });
});
