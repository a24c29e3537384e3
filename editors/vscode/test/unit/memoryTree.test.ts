// The Memories view's model: grouping by the file and symbol the code is in
// now, worst state first, conflicts marked, filters, and what is not a claim.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    buildTree,
    claimDescription,
    describeFilter,
    humanAge,
    missingIds,
    noFilter,
    recallTier,
    rowFromGet,
} from '../../src/core/memoryTree';
import { Finding, RecallRow } from '../../src/core/wire';

const range = (line: number) => ({ start: { line, character: 4 }, end: { line: line + 3, character: 0 } });

function row(id: string, state: string, anchor?: { path: string; symbol?: string; now?: string }, extra = {}): RecallRow {
    return {
        id,
        version: 1,
        label: null,
        text: `claim ${id}`,
        kind: 'fact',
        status: 'committed',
        created: '2026-11-01T00:00:00Z',
        source_agent: 'claude:test',
        origin: 'project',
        anchors: anchor
            ? [
                  {
                      path: anchor.path,
                      kind: anchor.symbol ? 'function' : 'file',
                      symbol: anchor.symbol,
                      state,
                      current: state === 'orphaned' ? undefined : { path: anchor.now ?? anchor.path, range: range(10) },
                  },
              ]
            : [],
        score: 0,
        tier: 'project',
        stale: false,
        age: '3 days',
        anchor_state: state,
        why: [],
        ...extra,
    };
}

function finding(code: string, path: string, claimId = '', message = 'm'): Finding {
    return {
        code,
        severity: 'warning',
        claim_id: claimId,
        label: '',
        tier: claimId ? 'project' : '',
        path,
        symbol: '',
        message,
        range: range(4),
        claim_file: '',
        replacement: '',
    };
}

const rows = [
    row('c-1', 'intact', { path: 'src/a.py', symbol: 'f' }),
    row('c-2', 'drifted', { path: 'src/a.py', symbol: 'g' }),
    row('c-3', 'intact', { path: 'src/a.py', symbol: 'g' }, { kind: 'decision' }),
    row('c-4', 'orphaned', { path: 'src/b.py', symbol: 'h' }),
    row('c-5', 'unanchored'),
    row('c-6', 'moved', { path: 'src/old.py', symbol: 'k', now: 'src/new.py' }),
    row('c-7', 'intact', { path: 'src/c.py', symbol: 'm' }),
    row('c-8', 'intact', { path: 'src/c.py' }, { label_shared_with: ['c-9'] }),
];

test('claims group by the file their code is in now and by symbol, worst first', () => {
    const tree = buildTree(rows, [], noFilter, false);
    // c.py holds a conflicted claim (a shared label), b.py an orphaned one,
    // a.py a drifted one, new.py a moved one; the unanchored claim is last.
    assert.deepEqual(
        tree.files.map((f) => [f.path, f.worst]),
        [
            ['src/c.py', 'conflicted'],
            ['src/b.py', 'orphaned'],
            ['src/a.py', 'drifted'],
            ['src/new.py', 'moved'],
            ['', 'unanchored'],
        ],
    );
    const a = tree.files[2];
    assert.deepEqual(
        a.symbols.map((s) => [s.name, s.claims.map((c) => c.id)]),
        [
            ['g', ['c-2', 'c-3']],
            ['f', ['c-1']],
        ],
    );
    const moved = tree.files[3].symbols[0].claims[0];
    assert.deepEqual(moved.at, { path: 'src/new.py', range: range(10) });
    assert.equal(moved.anchor, 'src/old.py#k');
    assert.equal(tree.files[1].symbols[0].claims[0].at, undefined); // orphaned: no place
    const shared = tree.files[0].symbols.find((s) => s.name === '')!.claims[0];
    assert.equal(shared.state, 'conflicted');
    assert.match(shared.conflict!, /c-9/);
});

test('a conflict or unmerged finding on a claim marks it conflicted', () => {
    const tree = buildTree(
        rows,
        [finding('engram.conflict', 'src/a.py', 'c-1', 'contradicts c-3'), finding('engram.unmerged', 'x.md', 'c-7')],
        noFilter,
        false,
    );
    const a = tree.files.find((f) => f.path === 'src/a.py')!;
    assert.equal(a.worst, 'conflicted');
    assert.deepEqual(a.symbols[0], { ...a.symbols[0], name: 'f', worst: 'conflicted' });
    assert.equal(a.symbols[0].claims[0].conflict, 'contradicts c-3');
    assert.equal(tree.files.find((f) => f.path === 'src/c.py')!.symbols[0].claims[0].state, 'conflicted');
});

test('filters keep the states and kinds asked for; one tier goes to recall', () => {
    const tree = buildTree(rows, [], { states: ['drifted', 'orphaned'], kinds: [], tiers: [] }, false);
    assert.deepEqual(
        tree.files.flatMap((f) => f.symbols.flatMap((s) => s.claims.map((c) => c.id))),
        ['c-4', 'c-2'],
    );
    const decisions = buildTree(rows, [], { states: [], kinds: ['decision'], tiers: [] }, false);
    assert.deepEqual(
        decisions.files.flatMap((f) => f.symbols.flatMap((s) => s.claims.map((c) => c.id))),
        ['c-3'],
    );
    assert.equal(recallTier({ ...noFilter, tiers: ['medulla'] }), 'medulla');
    assert.equal(recallTier({ ...noFilter, tiers: ['team:platform'] }), 'team:platform');
    assert.equal(recallTier({ ...noFilter, tiers: ['project', 'medulla'] }), undefined);
    assert.equal(describeFilter({ states: ['drifted'], kinds: ['fact', 'gotcha'], tiers: [] }), 'drifted · fact, gotcha');
});

test('instruction-file and claim-file findings and open reports are listed beside the claims', () => {
    const tree = buildTree(
        rows,
        [
            finding('engram.dangling', 'AGENTS.md'),
            finding('engram.drifted', 'AGENTS.md'),
            finding('engram.drifted', 'src/a.py', 'c-2'), // a claim's: shown on the claim
            finding('engram.invalid', '.engram/claims/c-x.md', 'c-x'),
            finding('engram.stale', 'src/a.py', 'c-1'),
        ],
        noFilter,
        true,
        [
            {
                name: '/w',
                reports: [
                    { id: 'r-1', what: 'recall missed the cache note', state: 'open', filed: '2026-11-20' },
                    { id: 'r-2', what: 'answered one', state: 'answered', filed: '2026-11-19' },
                ],
            },
        ],
    );
    assert.deepEqual(
        tree.other.map((g) => [g.title, g.findings.map((f) => `${f.code} ${f.path}:${f.line}`)]),
        [
            ['Instruction files', ['engram.dangling AGENTS.md:5', 'engram.drifted AGENTS.md:5']],
            ['Claim files', ['engram.invalid .engram/claims/c-x.md:5']],
        ],
    );
    assert.deepEqual(tree.reports?.reports.map((r) => r.id), ['r-1']);
    assert.equal(tree.truncated, true);
});

test('a claim reads state, age and author, and its tier when not the project', () => {
    const tree = buildTree([row('c-1', 'drifted', { path: 'a.py', symbol: 'f' }, { tier: 'medulla' })], [], noFilter, false);
    assert.equal(claimDescription(tree.files[0].symbols[0].claims[0]), 'drifted · 3 days · claude:test · medulla');
});

test('claims a finding names but the newest rows miss are fetched, at most the cap, once each', () => {
    const findings = [
        finding('engram.drifted', 'src/old.py', 'c-old'),
        finding('engram.drifted', 'src/a.py', 'c-2'), // among the rows
        finding('engram.stale', 'src/x.py', 'c-stale'), // not a reason to show it first
        finding('engram.orphaned', 'src/old.py', 'c-old'), // the same claim again
        finding('engram.dangling', 'AGENTS.md'), // no claim
        finding('engram.conflict', 'src/y.py', 'c-y'),
        finding('engram.unmerged', '.engram/claims/c-z.md', 'c-z'),
    ];
    assert.deepEqual(missingIds(rows, findings, 10), ['c-old', 'c-y', 'c-z']);
    assert.deepEqual(missingIds(rows, findings, 2), ['c-old', 'c-y']);
});

test('a fetched claim becomes a row with its age counted as engram counts it', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const got = {
        ...row('c-old', 'drifted', { path: 'src/old.py', symbol: 'f' }),
        created: '2026-11-21T11:00:00Z',
        file: '/w/.engram/claims/c-old.md',
    };
    const r = rowFromGet(got, now);
    assert.equal(r.age, '3 days');
    assert.equal(r.anchor_state, 'drifted');
    const tree = buildTree([r], [], noFilter, false);
    assert.equal(tree.files[0].symbols[0].claims[0].state, 'drifted');
    assert.equal(rowFromGet({ ...got, created: 'unknown' }, now).age, 'unknown');
    assert.deepEqual(
        [30, 90, 7200, 86400 * 2, 86400 * 90, 86400 * 800].map(humanAge),
        ['just now', '1 minute', '2 hours', '2 days', '3 months', '2 years'],
    );
});

test('the tier filter keeps rows of the tiers asked for', () => {
    const mixed = [row('c-1', 'intact', { path: 'a.py', symbol: 'f' }), row('c-2', 'intact', { path: 'a.py', symbol: 'g' }, { tier: 'medulla' })];
    const tree = buildTree(mixed, [], { ...noFilter, tiers: ['medulla'] }, false);
    assert.deepEqual(tree.files.flatMap((f) => f.symbols.flatMap((s) => s.claims.map((c) => c.id))), ['c-2']);
});

test('within one state, claims keep recall order (newest first)', () => {
    const newestFirst = ['c-z', 'c-a', 'c-m'].map((id) => row(id, 'intact', { path: 'a.py', symbol: 'f' }));
    const tree = buildTree(newestFirst, [], noFilter, false);
    assert.deepEqual(tree.files[0].symbols[0].claims.map((c) => c.id), ['c-z', 'c-a', 'c-m']);
});
