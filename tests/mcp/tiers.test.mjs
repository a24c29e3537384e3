// The no-leak permutation through MCP: projects X and Y and the medulla on
// one machine (one ENGRAM_HOME); from X and from Y, each recall scope
// returns exactly the claims it should, every row naming its tier and origin.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { connect, makeAjv, makeWorkspace } from './helpers.mjs';

const X = 'parser alpha lives in X';
const Y = 'parser alpha lives in Y';
const M = 'parser alpha doctrine';

describe('tiers through MCP', () => {
  let wx, wy, sx, sy, validate;

  before(async () => {
    wx = makeWorkspace('xproj');
    wy = makeWorkspace('yproj');
    // One machine: both servers share X's ENGRAM_HOME.
    sx = await connect({ home: wx.home, args: ['--root', wx.root, '--output-schemas'] });
    sy = await connect({ home: wx.home, args: ['--root', wy.root] });
    const { tools } = await sx.client.listTools();
    validate = makeAjv().compile(tools.find((t) => t.name === 'recall').outputSchema);
    for (const [s, args] of [
      [sx, { text: X }],
      [sy, { text: Y }],
      [sx, { text: M, tier: 'medulla' }],
    ]) {
      const r = await s.call('remember', args);
      assert.notEqual(r.isError, true, JSON.stringify(r));
    }
  });
  after(async () => {
    await sx.close();
    await sy.close();
    wx.cleanup();
    wy.cleanup();
  });

  const expected = (fromX, tier) => {
    const own = fromX ? X : Y;
    if (tier === 'project') return [own];
    if (tier === 'medulla') return [M];
    if (tier === 'all') return [M, X, Y];
    return [M, own];
  };

  for (const fromX of [true, false]) {
    for (const tier of ['default', 'project', 'medulla', 'all']) {
      test(`from ${fromX ? 'X' : 'Y'}, tier ${tier}`, async () => {
        const args = { query: 'parser alpha' };
        if (tier !== 'default') args.tier = tier;
        const r = await (fromX ? sx : sy).call('recall', args);
        assert.notEqual(r.isError, true);
        assert.ok(validate(r.structuredContent), JSON.stringify(validate.errors));
        const rows = r.structuredContent.rows;
        assert.deepEqual(rows.map((row) => row.text).sort(), expected(fromX, tier).sort());
        for (const row of rows) {
          if (row.text === M) {
            assert.equal(row.tier, 'medulla');
            assert.equal(row.origin, 'medulla');
          } else {
            const rowIsX = row.text === X;
            assert.equal(row.tier, rowIsX === fromX ? 'project' : 'other');
            assert.equal(row.origin, rowIsX ? 'project:xproj' : 'project:yproj');
            assert.equal(row.store, rowIsX ? wx.root : wy.root);
          }
          assert.ok(row.provenance.length > 0);
        }
      });
    }
  }

  test('tier all names a registered project that is gone', async () => {
    fs.rmSync(wy.root, { recursive: true, force: true });
    const r = await sx.call('recall', { query: 'parser alpha', tier: 'all' });
    assert.ok(validate(r.structuredContent), JSON.stringify(validate.errors));
    assert.deepEqual(r.structuredContent.unreachable.map((u) => u.root), [wy.root]);
    assert.deepEqual(r.structuredContent.rows.map((row) => row.text).sort(), [M, X].sort());
  });
});
