// The parameters the extension sends for each command.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    agentName,
    delegateParams,
    recallParams,
    rememberParams,
    retractParams,
    reverifyParams,
} from '../../src/core/requests';

const uri = 'file:///w/src/auth.py';

test('remember without a selection anchors the definition around the cursor', () => {
    const p = rememberParams({ text: '  checks .ok ', agent: 'human:ana', uri, cursor: { line: 13, character: 8 } });
    assert.deepEqual(p, {
        text: 'checks .ok',
        agent: 'human:ana',
        anchors: [{ uri, position: { line: 13, character: 8 } }],
    });
});

test('an empty selection counts as no selection', () => {
    const at = { line: 4, character: 2 };
    const p = rememberParams({ text: 't', agent: 'a', uri, cursor: at, selection: { start: at, end: at } });
    assert.deepEqual(p.anchors, [{ uri, position: at }]);
});

test('a selection anchors its lines; a selection ending at column 0 leaves that line out', () => {
    const whole = rememberParams({
        text: 't',
        agent: 'a',
        uri,
        cursor: { line: 9, character: 0 },
        selection: { start: { line: 5, character: 0 }, end: { line: 9, character: 0 } },
    });
    assert.deepEqual(whole.anchors, [
        { uri, range: { start: { line: 5, character: 0 }, end: { line: 8, character: 0 } } },
    ]);
    const inLine = rememberParams({
        text: 't',
        agent: 'a',
        uri,
        cursor: { line: 7, character: 3 },
        selection: { start: { line: 7, character: 3 }, end: { line: 7, character: 9 } },
    });
    assert.deepEqual(inLine.anchors, [
        { uri, range: { start: { line: 7, character: 0 }, end: { line: 7, character: 0 } } },
    ]);
});

test('remember refuses empty text before anything is sent', () => {
    assert.throws(() => rememberParams({ text: '   ', agent: 'a', uri, cursor: { line: 0, character: 0 } }));
});

test('recall searches with a query, lists without one, and ranks the focused file higher', () => {
    assert.deepEqual(recallParams({ query: ' expired tokens ' }), { limit: 50, query: 'expired tokens' });
    assert.deepEqual(recallParams({ query: '', focusUri: uri, limit: 5 }), { limit: 5, uri });
});

test('writes are recorded under the engram.agent setting, else the user', () => {
    assert.equal(agentName('claude:pair', 'ana'), 'claude:pair');
    assert.equal(agentName('  ', 'ana'), 'human:ana');
    assert.equal(agentName('', ''), 'human:unknown');
});

test('retract needs a reason; reverify takes an optional note', () => {
    assert.throws(() => retractParams('c-1', 'a', ' '));
    assert.deepEqual(retractParams('c-1', 'a', ' pool removed '), { id: 'c-1', agent: 'a', reason: 'pool removed' });
    assert.deepEqual(reverifyParams('c-1', 'a', ''), { id: 'c-1', agent: 'a' });
    assert.deepEqual(reverifyParams('c-1', 'a', 'checked'), { id: 'c-1', agent: 'a', note: 'checked' });
});

test('delegate needs a task and scopes the packet to the given paths', () => {
    assert.throws(() => delegateParams('', 'a', []));
    assert.deepEqual(delegateParams('add refresh tokens', 'a', []), { task: 'add refresh tokens', agent: 'a' });
    assert.deepEqual(delegateParams('t', 'a', ['src/auth.py']), { task: 't', agent: 'a', paths: ['src/auth.py'] });
});
