// MCP resources through the official SDK client: the findings of engram
// check, a claim by id and a file's claims, read as the matching tools
// answer them; unknown ones are the specification's -32002; a subscriber
// hears of this server's writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connect, makeAjv, makeWorkspace } from './helpers.mjs';

describe('resources', () => {
  let ws, s, outputSchemas, claimId;
  const updates = [];

  before(async () => {
    ws = makeWorkspace();
    s = await connect({ home: ws.home, args: ['--root', ws.root, '--output-schemas'] });
    s.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    const { tools } = await s.client.listTools();
    outputSchemas = Object.fromEntries(tools.map((t) => [t.name, t.outputSchema]));
    const r = await s.call('remember', {
      text: 'validate returns ok=False for expired tokens instead of raising',
      label: 'validate-silent',
      anchors: [{ path: 'src/auth.py', symbol: 'TokenValidator.validate' }],
    });
    claimId = r.structuredContent.claim.id;
  });
  after(async () => {
    await s.close();
    ws.cleanup();
  });

  // The JSON content of a resource, checked against the output schema of
  // the tool that answers it.
  async function read(uri, tool) {
    const r = await s.client.readResource({ uri });
    const json = r.contents.find((c) => c.mimeType === 'application/json');
    assert.ok(json, JSON.stringify(r));
    assert.equal(json.uri, uri);
    assert.ok(r.contents.some((c) => c.mimeType === 'text/plain' && c.text.length > 0));
    const value = JSON.parse(json.text);
    const validate = makeAjv().compile(outputSchemas[tool]);
    assert.ok(validate(value), `${uri}: ${JSON.stringify(validate.errors)}`);
    return value;
  }

  test('the server declares resources and lists the findings and three templates', async () => {
    assert.deepEqual(s.client.getServerCapabilities().resources, { subscribe: true, listChanged: false });
    const { resources } = await s.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['engram://findings']);
    const { resourceTemplates } = await s.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['engram://claim/{id}', 'engram://file/{+path}', 'engram://schema/{tool}']);
  });

  test('a claim and a file read as get and anchors answer', async () => {
    const claim = await read(`engram://claim/${claimId}`, 'get');
    assert.equal(claim.claim.id, claimId);
    assert.equal(claim.claim.anchors[0].state, 'intact');
    const file = await read('engram://file/src%2Fauth.py', 'anchors');
    assert.deepEqual(file.anchors.map((a) => a.claim_id), [claimId]);
  });

  test('the findings follow the code, and a subscriber hears of this server\'s writes', async () => {
    let findings = await read('engram://findings', 'check');
    assert.equal(findings.findings.length, 0);
    await s.client.subscribeResource({ uri: 'engram://findings' });
    const file = path.join(ws.root, 'src/auth.py');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('reason="expired"', 'reason="token expired"'));
    findings = await read('engram://findings', 'check');
    assert.deepEqual(findings.findings.map((f) => [f.code, f.claim_id]), [['engram.drifted', claimId]]);
    const r = await s.call('reverify', { id: claimId, note: 'still true' });
    assert.notEqual(r.isError, true);
    for (let i = 0; i < 50 && !updates.includes('engram://findings'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(updates.includes('engram://findings'), JSON.stringify(updates));
    assert.equal((await read('engram://findings', 'check')).findings.length, 0);
    await s.client.unsubscribeResource({ uri: 'engram://findings' });
  });

  test('an unknown resource or claim is -32002, resource not found', async () => {
    for (const uri of ['engram://nothing', 'file:///etc/passwd', 'engram://claim/c-000000000000']) {
      await assert.rejects(s.client.readResource({ uri }), (e) => {
        assert.equal(e.code, -32002, `${uri}: ${e.message}`);
        return true;
      });
    }
  });
});
