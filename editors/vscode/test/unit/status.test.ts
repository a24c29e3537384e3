// The status-bar item and the Status report.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusBarDown, statusBarView, statusReport, statusSummary } from '../../src/core/status';
import { StatusResult, StoreInfo } from '../../src/core/wire';

function store(tier: string, committed: number, exists = true): StoreInfo {
    return {
        tier,
        path: `/stores/${tier}`,
        name: tier,
        exists,
        index_ready: exists,
        claims: { committed, frontier: 0, retracted: 1, superseded: 0 },
        anchors: committed,
        broken_files: 0,
    };
}

function status(drifted: number, orphaned = 0, broken: StatusResult['broken_files'] = []): StatusResult {
    return {
        envelope: {
            status: 'ok',
            trust_mode: 'full_trust',
            binding: { root: '/w', fingerprint: '0123456789abcdef', source: 'initialize', mismatch: false },
            store: [{ ...store('project', 40), broken_files: broken.length }, store('medulla', 2)],
            next_suggested: null,
            session: { pid: 7, version: '0.1.0', started: '2026-01-01T00:00:00Z' },
        },
        anchor_health: { intact: 30, drifted, moved: 0, orphaned },
        broken_files: broken,
    };
}

test('the item counts live memories and the drifted ones', () => {
    const v = statusBarView(status(3));
    assert.equal(v.text, 'engram: 42 · 3 drifted');
    assert.equal(v.warning, true);
    assert.match(v.tooltip, /project: 40, medulla: 2/);
});

test('a healthy workspace shows the count alone, without a warning', () => {
    const v = statusBarView(status(0));
    assert.equal(v.text, 'engram: 42');
    assert.equal(v.warning, false);
});

test('orphaned anchors and broken claim files are counted too', () => {
    assert.equal(
        statusBarView(status(1, 2, [{ file: 'claims/x.md', problem: 'line 3: no colon' }])).text,
        'engram: 42 · 1 drifted · 2 orphaned · 1 broken',
    );
});

test('broken files are counted from the stores: the list names only the first ones', () => {
    const listed = Array.from({ length: 100 }, (_, i) => ({ file: `claims/c-${i}.md`, problem: 'line 1: no header' }));
    const s = status(0, 0, listed);
    s.envelope.store[0].broken_files = 250000;
    assert.equal(statusBarView(s).text, 'engram: 42 · 250000 broken');
    assert.equal(statusBarView(s).warning, true);
    const report = statusReport('/w', s);
    assert.equal(report.filter((l) => l.startsWith('  broken file  claims/')).length, 100);
    assert.ok(report.includes('  broken file  ... and 249900 more (engram check lists them)'));
});

test('a team store shows its remote, the age of its last sync and what waits; one not added says so', () => {
    const s = status(0);
    s.envelope.store.push({
        ...store('team:platform', 3),
        sync: { remote: 'git@example.com:acme/platform.git', age: '3 hours', pending: ['engram/promote-c-1'] },
    });
    s.envelope.store.push(store('team:billing', 0, false));
    const report = statusReport('/w', s);
    assert.ok(
        report.includes(
            '               a clone of git@example.com:acme/platform.git; last sync 3 hours ago; 1 waiting to be pushed (engram sync)',
        ),
    );
    assert.ok(report.some((l) => l.startsWith('  team:billing') && l.includes('not added on this machine')));
});

test('open reports in the inbox are counted, in progress with them, never external ones', () => {
    const s = status(0);
    s.inbox = { open: 1, in_progress: 1, answered: 4, external: 3, answers: 5 };
    const v = statusBarView(s);
    assert.equal(v.text, 'engram: 42 · 2 reports open');
    assert.match(v.tooltip, /2 open in the project's inbox/);
    assert.ok(statusReport('/w', s).some((l) => l.includes('inbox        1 open, 1 in progress, 4 answered, 3 external')));
    s.inbox = { open: 0, in_progress: 0, answered: 4, external: 3, answers: 5 };
    assert.equal(statusBarView(s).text, 'engram: 42');
});

test('a server that is not running says so', () => {
    assert.equal(statusBarDown('missing').text, 'engram: not found');
    assert.equal(statusBarDown('crashed').warning, true);
    assert.equal(statusBarDown('starting').warning, false);
});

test('the report names the binding, each store and the anchor health', () => {
    const lines = statusReport('ws', status(3));
    assert.equal(lines[0], 'engram status for ws');
    assert.ok(lines.some((l) => l.includes('/w (initialize, fingerprint 0123456789abcdef)')));
    assert.ok(lines.some((l) => l.includes('project') && l.includes('40 live')));
    assert.ok(lines.some((l) => l.includes('30 intact, 3 drifted, 0 moved, 0 orphaned')));
    assert.equal(statusSummary(status(0)), 'engram: 42 live memories, 30 anchors intact (full_trust).');
});
