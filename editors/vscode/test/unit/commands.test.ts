// Routing of server commands, locating memories, error messages, and the
// crash budget.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { anchorTarget, currentLocation, memoriesAt, unverifiedFirst } from '../../src/core/anchors';
import { CrashBudget } from '../../src/core/crashes';
import { advertisedMethods, unsupported, unsupportedError } from '../../src/core/capabilities';
import { errorMessage, isMethodNotFound } from '../../src/core/errors';
import { routeCommand, runOnServer } from '../../src/core/serverCommands';
import { AnchorEntry } from '../../src/core/wire';

test('a quick fix runs on the server of the folder it came from', () => {
    const cmd = { title: 'Re-verify', command: 'engram.reverify', arguments: [{ id: 'c-1', agent: 'a' }] };
    assert.deepEqual(routeCommand(cmd, 'file:///w', 'file:///w/a.py'), {
        title: 'Re-verify',
        command: runOnServer,
        arguments: ['file:///w', 'engram.reverify', { id: 'c-1', agent: 'a' }],
    });
});

test('every command engram advertises for its quick fixes is routed to its folder', () => {
    for (const command of ['engram.reverifyFile', 'engram.resolve', 'engram.retract', 'engram.openClaim']) {
        const routed = routeCommand({ title: 't', command, arguments: [{ file: 'AGENTS.md:3' }] }, 'file:///w', 'file:///w/AGENTS.md');
        assert.equal(routed.command, runOnServer, command);
        assert.deepEqual(routed.arguments, ['file:///w', command, { file: 'AGENTS.md:3' }]);
    }
});

test('a code lens keeps its claim ids and learns its document', () => {
    const lens = { title: '2 memories', command: 'engram.showMemories', arguments: [{ ids: ['c-1', 'c-2'] }] };
    assert.deepEqual(routeCommand(lens, 'file:///w', 'file:///w/a.py').arguments, [
        { ids: ['c-1', 'c-2'], uri: 'file:///w/a.py' },
    ]);
    const other = { title: 'x', command: 'editor.action.showReferences' };
    assert.equal(routeCommand(other, 'file:///w', 'file:///w/a.py'), other);
});

function entry(id: string, sl: number, el: number, state = 'intact'): AnchorEntry {
    return {
        claim_id: id,
        label: null,
        text: id,
        anchor: 0,
        symbol: id,
        anchor_state: state,
        source_agent: 'a',
        age: 'just now',
        range: { start: { line: sl, character: 4 }, end: { line: el, character: 10 } },
    };
}

test('the memories at the cursor are those of the innermost anchored symbol', () => {
    const cls = entry('class', 5, 30);
    const m1 = entry('method-a', 10, 15);
    const m2 = entry('method-b', 10, 15, 'drifted');
    const other = entry('other', 20, 25);
    const all = [cls, m1, m2, other];
    assert.deepEqual(memoriesAt(all, { line: 12, character: 0 }).map((e) => e.claim_id), ['method-a', 'method-b']);
    assert.deepEqual(memoriesAt(all, { line: 17, character: 0 }).map((e) => e.claim_id), ['class']);
    assert.deepEqual(unverifiedFirst([m1, m2]).map((e) => e.claim_id), ['method-b', 'method-a']);
    assert.deepEqual(memoriesAt(all, { line: 40, character: 0 }), []);
    // The range's start column counts: before it the cursor is outside.
    assert.deepEqual(memoriesAt([m1], { line: 10, character: 2 }), []);
});

test('choosing a claim goes to its symbol, its lines, its file or the claim itself', () => {
    assert.deepEqual(anchorTarget({ anchors: [] }), { kind: 'claim' });
    assert.deepEqual(anchorTarget({ anchors: [{ path: 'a.py', kind: 'method', symbol: 'A.f' }] }), {
        kind: 'symbol',
        path: 'a.py',
        symbol: 'A.f',
    });
    assert.deepEqual(anchorTarget({ anchors: [{ path: 'a.sql', kind: 'range', range: { start_line: 3, end_line: 9 } }] }), {
        kind: 'lines',
        path: 'a.sql',
        line: 2,
    });
    assert.deepEqual(anchorTarget({ anchors: [{ path: 'README', kind: 'file' }] }), { kind: 'file', path: 'README' });
});

test('a symbol that moved to another file is followed there', () => {
    const moved = { ...entry('c-1', 3, 9, 'moved'), moved_to: 'src/pool.py#connect' };
    assert.deepEqual(currentLocation([moved], 'c-1', 'src/db.py'), { path: 'src/pool.py', range: moved.range });
    const renamed = { ...entry('c-2', 3, 9, 'moved'), moved_to: 'open_connection' };
    assert.equal(currentLocation([renamed], 'c-2', 'src/db.py')?.path, 'src/db.py');
    assert.equal(currentLocation([renamed], 'c-9', 'src/db.py'), undefined);
});

test('a server without engram/delegate is named as such', () => {
    const err = { code: -32601, message: "unknown method 'engram/delegate'", data: { kind: 'MethodNotFound' } };
    assert.equal(isMethodNotFound(err), true);
    assert.equal(
        errorMessage(err, 'engram/delegate'),
        'engram: this engram server does not support delegation (engram/delegate). Update engram to delegate from the editor.',
    );
    assert.match(errorMessage(err, 'engram/anchors'), /does not support engram\/anchors/);
});

test('a method the server did not advertise is refused before it is sent, in the same words', () => {
    const init = { capabilities: { experimental: { engram: { methods: ['engram/recall', 'engram/anchors', 7] } } } };
    const methods = advertisedMethods(init);
    assert.deepEqual([...(methods ?? [])], ['engram/recall', 'engram/anchors']);
    assert.equal(unsupported(methods, 'engram/recall'), false);
    assert.equal(unsupported(methods, 'engram/delegate'), true);
    // Not engram's to refuse: the LSP's own methods and commands.
    assert.equal(unsupported(methods, 'workspace/executeCommand'), false);
    // An older engram that lists nothing is asked, and answers for itself.
    assert.equal(advertisedMethods({ capabilities: {} }), undefined);
    assert.equal(unsupported(undefined, 'engram/delegate'), false);
    assert.match(errorMessage(unsupportedError('engram/delegate'), 'engram/delegate'), /does not support delegation/);
});

test('a refusal keeps engram’s message and names its kind', () => {
    const err = { code: -32003, message: 'text: matches rule github-token at 10-50', data: { kind: 'SecretDetected' } };
    assert.equal(errorMessage(err, 'engram/remember'), 'engram: text: matches rule github-token at 10-50 (SecretDetected)');
    assert.equal(errorMessage(new Error('Client is not running'), 'engram/status'), 'engram: Client is not running');
    assert.equal(errorMessage('boom', 'engram/status'), 'engram: boom');
});

test('a server that keeps crashing is not restarted in a loop', () => {
    const b = new CrashBudget(3, 1000);
    assert.equal(b.crashed(0), true);
    assert.equal(b.crashed(10), true);
    assert.equal(b.crashed(20), true);
    assert.equal(b.crashed(30), false);
    // Crashes age out of the window.
    assert.equal(b.crashed(2000), true);
    b.crashed(2001);
    b.crashed(2002);
    assert.equal(b.crashed(2003), false);
    b.reset();
    assert.equal(b.crashed(2004), true);
});
