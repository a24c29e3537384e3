// Finding the engram binary, against real files in a temporary directory.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { findBinary, isExecutableFile, restoreExecutable } from '../../src/core/binary';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-binary-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(rel: string, mode: number): string {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, '#!/bin/sh\n');
    fs.chmodSync(p, mode);
    return p;
}

const notExecutable = file('a/engram', 0o644);
const executable = file('b/engram', 0o755);
fs.mkdirSync(path.join(dir, 'c/engram'), { recursive: true }); // a directory named engram
const inFolder = file('ws/tools/engram', 0o755);

test('PATH is searched in order, skipping files that cannot run and directories', () => {
    const PATH = [path.join(dir, 'c'), path.join(dir, 'a'), path.join(dir, 'missing'), path.join(dir, 'b')].join(
        path.delimiter,
    );
    assert.deepEqual(findBinary('', '/w', { PATH }), { ok: true, path: executable, source: 'PATH' });
});

test('no engram anywhere gives a message that names both places', () => {
    const r = findBinary('', '/w', { PATH: path.join(dir, 'a') });
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.message, /engram\.path is not set and there is no `engram` on PATH/);
});

test('the setting wins over PATH and may be relative to the folder or the home', () => {
    const PATH = path.join(dir, 'b');
    assert.deepEqual(findBinary('tools/engram', path.join(dir, 'ws'), { PATH }), {
        ok: true,
        path: inFolder,
        source: 'setting',
    });
    assert.deepEqual(findBinary('~/ws/tools/engram', '/elsewhere', { HOME: dir }), {
        ok: true,
        path: inFolder,
        source: 'setting',
    });
    assert.deepEqual(findBinary('${workspaceFolder}/tools/engram', path.join(dir, 'ws'), {}), {
        ok: true,
        path: inFolder,
        source: 'setting',
    });
});

test('a setting that points at nothing runnable is reported, not silently replaced by PATH', () => {
    const r = findBinary(notExecutable, '/w', { PATH: path.join(dir, 'b') });
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.message, /engram\.path is set to .* but .* is not an executable file/);
});

test('the bundled binary comes after the setting and before PATH', () => {
    const PATH = path.join(dir, 'b');
    const bundled = file('ext/bin/engram', 0o755);
    assert.deepEqual(findBinary('', '/w', { PATH }, bundled), { ok: true, path: bundled, source: 'bundled' });
    assert.deepEqual(findBinary(inFolder, '/w', { PATH }, bundled), { ok: true, path: inFolder, source: 'setting' });
    // The universal package has none: PATH, as before.
    assert.deepEqual(findBinary('', '/w', { PATH }, path.join(dir, 'none/bin/engram')), {
        ok: true,
        path: executable,
        source: 'PATH',
    });
});

test('a bundled binary unpacked without its executable bit gets it back', () => {
    const bundled = file('ext2/bin/engram', 0o644);
    assert.equal(isExecutableFile(bundled), false);
    restoreExecutable(bundled);
    assert.equal(isExecutableFile(bundled), true);
    restoreExecutable(path.join(dir, 'ext3/bin/engram')); // absent: nothing happens
    assert.equal(fs.existsSync(path.join(dir, 'ext3')), false);
});
