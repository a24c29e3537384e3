// Connecting with the official SDK client, version negotiation, the tool
// list and its schemas.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import { RawPeer, TOOL_NAMES, connect, makeAjv, makeWorkspace, textOf } from './helpers.mjs';

// Every member `listed` names, at any depth, is one `full` names (an
// alternative of the full schema counts).
function assertWithin(listed, full, where) {
  if (!listed || typeof listed !== 'object') return;
  const branches = full.anyOf ?? [full];
  const props = Object.assign({}, ...branches.map((b) => b.properties ?? {}));
  for (const [name, sub] of Object.entries(listed.properties ?? {})) {
    assert.ok(name in props, `${where}.${name} is listed but not in the full schema`);
    assertWithin(sub, props[name], `${where}.${name}`);
  }
  if (listed.items) {
    const items = branches.map((b) => b.items).find(Boolean);
    assert.ok(items, `${where}[] is listed but not in the full schema`);
    assertWithin(listed.items, items, `${where}[]`);
  }
}

describe('lifecycle', () => {
  let ws;
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());

  test('the SDK client connects and negotiates its newest revision', async () => {
    const s = await connect({ home: ws.home, args: ['--root', ws.root] });
    try {
      assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25', 'the SDK moved on: add its revision');
      assert.equal(s.negotiated(), LATEST_PROTOCOL_VERSION);
      const info = s.client.getServerVersion();
      assert.equal(info.name, 'engram');
      assert.match(info.version, /^\d+\.\d+\.\d+/);
      assert.deepEqual(s.client.getServerCapabilities().tools, { listChanged: false });
      await s.client.ping();
    } finally {
      await s.close();
    }
  });

  test('instructions teach how to use memory well', async () => {
    const s = await connect({ home: ws.home, args: ['--root', ws.root] });
    try {
      const text = s.client.getInstructions();
      assert.ok(text, 'initialize carries instructions');
      for (const needle of ['recall', 'remember', 'anchor', 'reverify', 'retract', 'drifted', 'sub-agent', 'never']) {
        assert.ok(text.includes(needle), `instructions mention ${needle}`);
      }
      assert.match(text, /sub-agent[^\n]*(contribute|hand your findings back)[^\n]*never promote/);
    } finally {
      await s.close();
    }
  });

  test('tools/list: every tool with a description and input schema; output schemas by resource', async () => {
    const s = await connect({ home: ws.home, args: ['--root', ws.root] });
    try {
      const listed = await s.client.listTools();
      const { tools, nextCursor } = listed;
      assert.equal(nextCursor, undefined);
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
      // Every byte of the list lands in the model's context at each session
      // start: the output schemas (most of it) are not in it by default.
      const bytes = JSON.stringify(listed).length;
      assert.ok(bytes <= 16 * 1024, `tools/list is ${bytes} bytes`);
      const ajv = makeAjv();
      for (const t of tools) {
        assert.ok(t.title, `${t.name} has a title`);
        assert.ok(t.description.length > 40 && !t.description.includes('\n'), `${t.name}: one line description`);
        assert.equal(t.inputSchema.type, 'object');
        assert.equal(t.outputSchema, undefined, `${t.name}: no output schema unless asked`);
        assert.equal(t.inputSchema.properties.root.type, 'string', `${t.name} takes root`);
        assert.equal(t.annotations.title, undefined, 'the title is said once');
        // Its schemas, from the resource, compile in strict mode (no unknown
        // keywords, no typos); the listed input schema is the full one
        // shortened: every member it names is the full one's, and so are
        // the required ones.
        const r = await s.client.readResource({ uri: `engram://schema/${t.name}` });
        const schemas = JSON.parse(r.contents[0].text);
        assert.deepEqual(t.inputSchema.required, schemas.inputSchema.required, t.name);
        assertWithin(t.inputSchema, schemas.inputSchema, t.name);
        ajv.compile(t.inputSchema);
        ajv.compile(schemas.inputSchema);
        ajv.compile(schemas.outputSchema);
        assert.equal(schemas.outputSchema.type, 'object');
        // Hints at their defaults are left out: readOnlyHint and
        // idempotentHint default to false, destructiveHint to true.
        assert.ok([true, undefined].includes(t.annotations.readOnlyHint), t.name);
        assert.equal(typeof t.annotations.destructiveHint, 'boolean');
        assert.equal(t.annotations.openWorldHint, false);
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      assert.deepEqual(byName.remember.inputSchema.required, ['text']);
      assert.deepEqual(byName.retract.inputSchema.required.sort(), ['id', 'reason']);
      assert.equal(byName.recall.annotations.readOnlyHint, true);
      assert.equal(byName.retract.annotations.destructiveHint, true);
      assert.equal(byName.remember.annotations.readOnlyHint, undefined);
      assert.equal(byName.remember.annotations.destructiveHint, false);
      // An anchor is listed in its text form, the one the instructions
      // explain once; the resource has the object form too.
      assert.equal(byName.remember.inputSchema.properties.anchors.items.type, 'string');
      assert.equal(byName.remember.inputSchema.properties.root.description, undefined);
      await assert.rejects(s.client.readResource({ uri: 'engram://schema/forget' }), /no tool named 'forget'/);
    } finally {
      await s.close();
    }
  });

  test('with --output-schemas, tools/list carries the output schemas the resource gives', async () => {
    const s = await connect({ home: ws.home, args: ['--root', ws.root, '--output-schemas'] });
    try {
      const { tools } = await s.client.listTools();
      for (const t of tools) {
        const r = await s.client.readResource({ uri: `engram://schema/${t.name}` });
        assert.deepEqual(t.outputSchema, JSON.parse(r.contents[0].text).outputSchema, t.name);
      }
      const recall = tools.find((t) => t.name === 'recall');
      assert.ok(recall.outputSchema.required.includes('envelope'));
    } finally {
      await s.close();
    }
  });

  test('the server exits when the client closes stdin', async () => {
    const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
    await peer.initialize();
    assert.equal(await peer.close(), 0);
  });
});

describe('version negotiation', () => {
  let ws;
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());

  for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
    test(`a client asking for ${v} gets ${v}`, async () => {
      const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
      try {
        const reply = await peer.initialize(v);
        assert.equal(reply.result.protocolVersion, v);
        assert.equal(reply.result.serverInfo.name, 'engram');
      } finally {
        await peer.close();
      }
    });
  }

  test('an unknown revision is answered with the newest one', async () => {
    const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
    try {
      const reply = await peer.initialize('2099-01-01');
      assert.equal(reply.result.protocolVersion, '2025-11-25');
    } finally {
      await peer.close();
    }
  });

  test('initialize without protocolVersion is refused naming the field', async () => {
    const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
    try {
      const reply = await peer.request('initialize', { capabilities: {} }, 1);
      assert.equal(reply.error.code, -32602);
      assert.match(reply.error.message, /^protocolVersion: is required/);
      assert.equal(reply.error.data.field, 'protocolVersion');
      const retry = await peer.initialize('2025-06-18');
      assert.equal(retry.result.protocolVersion, '2025-06-18');
    } finally {
      await peer.close();
    }
  });

  test('2024-11-05: no output schemas or annotations, results as text (with the JSON)', async () => {
    const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
    try {
      await peer.initialize('2024-11-05');
      const list = await peer.request('tools/list', {}, 2);
      for (const t of list.result.tools) {
        assert.equal(t.outputSchema, undefined);
        assert.equal(t.annotations, undefined);
        assert.equal(t.title, undefined);
      }
      const status = await peer.request('tools/call', { name: 'status', arguments: {} }, 3);
      assert.equal(status.result.structuredContent, undefined);
      assert.equal(status.result.content.length, 2);
      assert.match(status.result.content[0].text, /root /);
      const data = JSON.parse(status.result.content[1].text);
      assert.equal(data.envelope.binding.root, ws.root);
    } finally {
      await peer.close();
    }
  });

  test('by default a result is the text alone, at every revision: what clients hand a model', async () => {
    // Clients agents run in give a model the JSON instead of the text when
    // both come; the JSON is for programs, which ask for it (--structured).
    for (const version of ['2024-11-05', '2025-06-18']) {
      const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root], structured: false });
      try {
        await peer.initialize(version);
        const status = await peer.request('tools/call', { name: 'status', arguments: {} }, 3);
        assert.equal(status.result.structuredContent, undefined, version);
        assert.equal(status.result.content.length, 1, version);
        assert.match(status.result.content[0].text, new RegExp(`root ${ws.root} \\(--root\\)`));
      } finally {
        await peer.close();
      }
    }
  });

  test('2025-03-26: annotations but no output schemas', async () => {
    const peer = new RawPeer({ home: ws.home, args: ['--root', ws.root] });
    try {
      await peer.initialize('2025-03-26');
      const list = await peer.request('tools/list', {}, 2);
      for (const t of list.result.tools) {
        assert.equal(t.outputSchema, undefined);
        assert.equal(typeof t.annotations.destructiveHint, 'boolean');
      }
    } finally {
      await peer.close();
    }
  });

  test('2025-06-18 and later: structuredContent beside one readable text block', async () => {
    const s = await connect({ home: ws.home, args: ['--root', ws.root] });
    try {
      const r = await s.call('status');
      assert.equal(r.isError, undefined);
      assert.equal(r.content.length, 1);
      assert.equal(r.structuredContent.envelope.binding.root, ws.root);
      assert.match(textOf(r), new RegExp(`root ${ws.root} \\(--root\\)`));
    } finally {
      await s.close();
    }
  });
});
