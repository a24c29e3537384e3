// How memories read in the pick lists.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { anchorText, emptyRecallMessage, fromAnchorEntry, fromRecallRow, memories, renderRow } from '../../src/core/rows';
import { RecallRow } from '../../src/core/wire';

function row(overrides: Partial<RecallRow> = {}): RecallRow {
    return {
        id: 'c-abc',
        version: 1,
        label: 'validate-silent',
        text: 'validate returns ok=False\nfor expired tokens',
        kind: 'gotcha',
        status: 'committed',
        created: '2026-01-01T00:00:00Z',
        source_agent: 'claude:maker',
        origin: 'project:ws',
        anchors: [{ path: 'src/auth.py', kind: 'method', symbol: 'TokenValidator.validate' }],
        score: 0.5,
        tier: 'project',
        stale: false,
        age: '3 days ago',
        anchor_state: 'drifted',
        why: ["matched 'expir' in text"],
        ...overrides,
    };
}

test('a recall row shows its state, tier, age and author', () => {
    assert.deepEqual(renderRow(fromRecallRow(row())), {
        label: '$(warning) validate returns ok=False for expired tokens',
        description: 'project · drifted · 3 days ago · claude:maker',
        detail: 'gotcha · validate-silent · src/auth.py#TokenValidator.validate · c-abc',
    });
});

test('missing provenance is shown as unknown, never left blank', () => {
    const r = renderRow(fromRecallRow(row({ source_agent: '', age: '', anchor_state: 'unanchored', anchors: [], label: null })));
    assert.equal(r.description, 'project · unanchored · unknown · unknown');
    assert.equal(r.label.startsWith('$(circle-outline) '), true);
    assert.equal(r.detail, 'gotcha · c-abc');
});

test('range anchors name their lines; long text is cut', () => {
    const r = fromRecallRow(
        row({ text: 'x'.repeat(300), anchors: [{ path: 'src/db.py', kind: 'range', range: { start_line: 6, end_line: 8 } }] }),
    );
    assert.equal(r.where, 'src/db.py:6-8');
    const label = renderRow(r).label;
    assert.equal(label.endsWith('…'), true);
    assert.equal(label.length, '$(warning) '.length + 120);
});

test('claims on a symbol render like recall rows', () => {
    const r = fromAnchorEntry(
        {
            claim_id: 'c-1',
            label: null,
            text: 'pooled',
            anchor: 0,
            symbol: 'connect',
            anchor_state: 'moved',
            source_agent: 'human:ana',
            age: 'just now',
            moved_to: 'open_connection',
        },
        'src/db.py',
    );
    assert.deepEqual(renderRow(r), {
        label: '$(arrow-swap) pooled',
        description: 'project · moved · just now · human:ana',
        detail: 'src/db.py#connect · c-1',
    });
    assert.deepEqual(r.why, ['moved to open_connection']);
});

test('an empty answer says whether memory exists', () => {
    assert.equal(
        emptyRecallMessage('zzz', { why_empty: "3 live claims exist, but none matched the query 'zzz'", memory_exists: {} }),
        "engram: 3 live claims exist, but none matched the query 'zzz'.",
    );
    assert.match(emptyRecallMessage('', { memory_exists: { project: { live: 0 } } }), /no memories yet/);
    assert.match(emptyRecallMessage('q', { memory_exists: { project: { live: 2 }, medulla: { live: 1 } } }), /3 live/);
});

test('anchors and counts read the same everywhere', () => {
    assert.equal(anchorText({ path: 'src/a.py', kind: 'method', symbol: 'A.f' }), 'src/a.py#A.f');
    assert.equal(anchorText({ path: 'a.sql', kind: 'range', range: { start_line: 3, end_line: 9 } }), 'a.sql:3-9');
    assert.equal(anchorText({ path: 'README', kind: 'file' }), 'README');
    assert.equal(anchorText(undefined), '');
    assert.equal(memories(1), '1 memory');
    assert.equal(memories(0), '0 memories');
});
