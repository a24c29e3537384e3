// Binding: --root, ENGRAM_ROOT, the client's roots, the working directory;
// several roots; the envelope says which source was used.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { connect, makeWorkspace, pathToUri, textOf } from './helpers.mjs';

describe('binding', () => {
  let a, b, elsewhere;
  before(() => {
    a = makeWorkspace('alpha');
    b = makeWorkspace('beta');
    // A directory outside both workspaces, itself a repository root.
    elsewhere = makeWorkspace('elsewhere');
  });
  after(() => {
    a.cleanup();
    b.cleanup();
    elsewhere.cleanup();
  });

  async function binding(s, args = {}) {
    const r = await s.call('status', args);
    assert.notEqual(r.isError, true, textOf(r));
    return r.structuredContent.envelope.binding;
  }

  test('the client roots bind when neither --root nor ENGRAM_ROOT is given', async () => {
    const s = await connect({ home: a.home, cwd: elsewhere.root, roots: [{ uri: pathToUri(a.root), name: 'alpha' }] });
    try {
      const bind = await binding(s);
      assert.equal(bind.root, a.root);
      assert.equal(bind.source, 'roots');
    } finally {
      await s.close();
    }
  });

  test('--root wins over the client roots', async () => {
    const s = await connect({ home: a.home, cwd: elsewhere.root, args: ['--root', b.root], roots: [{ uri: pathToUri(a.root) }] });
    try {
      const bind = await binding(s);
      assert.equal(bind.root, b.root);
      assert.equal(bind.source, '--root');
    } finally {
      await s.close();
    }
  });

  test('ENGRAM_ROOT wins over the client roots', async () => {
    const s = await connect({ home: a.home, cwd: elsewhere.root, env: { ENGRAM_ROOT: b.root }, roots: [{ uri: pathToUri(a.root) }] });
    try {
      const bind = await binding(s);
      assert.equal(bind.root, b.root);
      assert.equal(bind.source, 'ENGRAM_ROOT');
    } finally {
      await s.close();
    }
  });

  test('without roots: the repository around the working directory', async () => {
    const s = await connect({ home: a.home, cwd: path.join(a.root, 'src') });
    try {
      const bind = await binding(s);
      assert.equal(bind.root, a.root);
      assert.equal(bind.source, 'discovered');
    } finally {
      await s.close();
    }
  });

  test('a client that fails roots/list leaves the working directory bound', async () => {
    const s = await connect({
      home: a.home,
      cwd: elsewhere.root,
      roots: () => {
        throw new Error('no roots today');
      },
    });
    try {
      const bind = await binding(s);
      assert.equal(bind.root, elsewhere.root);
      assert.equal(bind.source, 'discovered');
    } finally {
      await s.close();
    }
  });

  test('roots/list_changed rebinds', async () => {
    const s = await connect({ home: a.home, cwd: elsewhere.root, roots: [{ uri: pathToUri(a.root) }] });
    try {
      assert.equal((await binding(s)).root, a.root);
      await s.setRoots([{ uri: pathToUri(b.root) }]);
      assert.equal((await binding(s)).root, b.root);
    } finally {
      await s.close();
    }
  });

  test('several roots: calls say which, or a claim id finds its own', async () => {
    const s = await connect({ home: a.home, cwd: elsewhere.root, roots: [{ uri: pathToUri(a.root) }, { uri: pathToUri(b.root) }] });
    try {
      const amb = await s.call('status');
      assert.equal(amb.isError, true);
      assert.match(textOf(amb), /^AmbiguousRoot: root: this session serves several workspace roots/);
      assert.ok(textOf(amb).includes(a.root) && textOf(amb).includes(b.root), 'the roots are listed');

      const r = await s.call('remember', { text: 'Beta keeps its sessions in web/session.ts', root: b.root, anchors: [{ path: 'web/session.ts' }] });
      assert.notEqual(r.isError, true, textOf(r));
      const id = r.structuredContent.claim.id;
      assert.ok(fs.existsSync(path.join(b.root, '.engram/claims', `${id}.md`)));
      assert.ok(!fs.existsSync(path.join(a.root, '.engram/claims', `${id}.md`)));

      // A path inside a root (a file:// URI here) selects that root.
      assert.equal((await binding(s, { root: pathToUri(path.join(b.root, 'web')) })).root, b.root);
      // get by id needs no root: the id is in one project store only.
      const g = await s.call('get', { id });
      assert.notEqual(g.isError, true, textOf(g));
      assert.equal(g.structuredContent.claim.id, id);
      // No leak: alpha's recall does not see beta's claim.
      const ra = await s.call('recall', { query: 'sessions', root: a.root });
      assert.ok(!ra.structuredContent.rows.some((row) => row.id === id));
      const rb = await s.call('recall', { query: 'sessions', root: b.root });
      assert.ok(rb.structuredContent.rows.some((row) => row.id === id));
    } finally {
      await s.close();
    }
  });

  // The routing rules are the LSP's (ops/Routing.h; tests/e2e/MultiRootTest.cpp
  // holds them over the LSP): documents, the medulla, relative paths.
  test('several roots: a document routes the call, the medulla needs no root', async () => {
    const s = await connect({ home: a.home, cwd: elsewhere.root, roots: [{ uri: pathToUri(a.root) }, { uri: pathToUri(b.root) }] });
    try {
      // An absolute anchor path inside beta: beta's store, no root needed.
      const r = await s.call('remember', { text: 'Beta renders its pages in web/session.ts', anchors: [{ path: path.join(b.root, 'web/session.ts') }] });
      assert.notEqual(r.isError, true, textOf(r));
      const id = r.structuredContent.claim.id;
      assert.ok(fs.existsSync(path.join(b.root, '.engram/claims', `${id}.md`)));
      assert.ok(!fs.existsSync(path.join(a.root, '.engram/claims', `${id}.md`)));
      // A file:// URI routes the same way.
      const viaUri = await s.call('anchors', { uri: pathToUri(path.join(b.root, 'web/session.ts')) });
      assert.notEqual(viaUri.isError, true, textOf(viaUri));

      // The medulla is the same store from every root.
      const m = await s.call('remember', { text: 'Doctrine: keep functions small and pure', tier: 'medulla' });
      assert.notEqual(m.isError, true, textOf(m));
      const mr = await s.call('recall', { query: 'functions small pure', tier: 'medulla' });
      assert.notEqual(mr.isError, true, textOf(mr));
      assert.ok(mr.structuredContent.rows.some((row) => row.id === m.structuredContent.claim.id));

      // A path outside every root, and a relative one, are refused, naming the field.
      const out = await s.call('anchors', { path: path.join(elsewhere.root, 'web/session.ts') });
      assert.equal(out.isError, true);
      assert.match(textOf(out), /^OutsideRoot: path: '.*' is outside every workspace root/);
      const rel = await s.call('anchors', { path: 'web/session.ts' });
      assert.equal(rel.isError, true);
      assert.match(textOf(rel), /^AmbiguousRoot: .*'web\/session\.ts' is relative/);
    } finally {
      await s.close();
    }
  });

  test('a root that is not bound: reported by recall and status, refused by writes', async () => {
    const s = await connect({ home: a.home, args: ['--root', a.root] });
    try {
      const r = await s.call('recall', { query: 'anything', root: b.root });
      const e = r.structuredContent.envelope;
      assert.equal(e.binding.mismatch, true);
      assert.equal(e.binding.requested_root, b.root);
      assert.equal(e.trust_mode, 'wrong_workspace_binding');
      assert.equal(e.recovery.method, 'engram mcp');
      const w = await s.call('remember', { text: 'should not land', root: b.root });
      assert.equal(w.isError, true);
      assert.match(textOf(w), /^NotBound: root: this engram serves/);
      // A directory inside the bound root is the bound root.
      const inside = await s.call('status', { root: path.join(a.root, 'src') });
      assert.equal(inside.structuredContent.envelope.binding.mismatch, false);
    } finally {
      await s.close();
    }
  });
});
