// How a memory is shown in a pick list: recall rows and the claims anchored
// on a symbol share one rendering, so every list says the same things in the
// same order (tier, anchor state, age, author) and drift is never silent.
import { AnchorEntry, RecallRow } from './wire';

export interface MemoryRow {
    id: string;
    text: string;
    label: string | null;
    kind: string;
    tier: string;
    anchorState: string;
    age: string;
    author: string;
    /** "src/auth.py#TokenValidator.validate", "src/db.py:6-8", "src/db.py" or "" */
    where: string;
    why: string[];
}

/** "src/auth.py#TokenValidator.validate", "src/db.py:6-8", "src/db.py", or "" without an anchor. */
export function anchorText(a: RecallRow['anchors'][number] | undefined): string {
    if (!a) return '';
    if (a.symbol) return `${a.path}#${a.symbol}`;
    if (a.range) return `${a.path}:${a.range.start_line}-${a.range.end_line}`;
    return a.path;
}

/** "1 memory", "3 memories". */
export function memories(n: number): string {
    return `${n} ${n === 1 ? 'memory' : 'memories'}`;
}

function orUnknown(s: string | null | undefined): string {
    return s && s.trim() ? s : 'unknown';
}

export function fromRecallRow(r: RecallRow): MemoryRow {
    return {
        id: r.id,
        text: r.text,
        label: r.label,
        kind: orUnknown(r.kind),
        tier: orUnknown(r.tier),
        anchorState: orUnknown(r.anchor_state),
        age: orUnknown(r.age),
        author: orUnknown(r.source_agent),
        where: anchorText(r.anchors[0]),
        why: r.why ?? [],
    };
}

/** engram/anchors lists the project's claims in one file. */
export function fromAnchorEntry(a: AnchorEntry, path: string): MemoryRow {
    return {
        id: a.claim_id,
        text: a.text,
        label: a.label,
        kind: 'unknown',
        tier: 'project',
        anchorState: orUnknown(a.anchor_state),
        age: orUnknown(a.age),
        author: orUnknown(a.source_agent),
        where: a.symbol ? `${path}#${a.symbol}` : path,
        why: a.moved_to ? [`moved to ${a.moved_to}`] : [],
    };
}

// Codicons: a state reads at a glance even in a long list.
const stateIcon: Record<string, string> = {
    intact: '$(pass)',
    drifted: '$(warning)',
    moved: '$(arrow-swap)',
    orphaned: '$(error)',
    unjudged: '$(question)',
    unanchored: '$(circle-outline)',
};

export interface PickRow {
    label: string;
    description: string;
    detail: string;
}

function oneLine(s: string, max: number): string {
    const flat = s.replace(/\s+/g, ' ').trim();
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function renderRow(row: MemoryRow): PickRow {
    const icon = stateIcon[row.anchorState] ?? '$(question)';
    const detail = [row.kind !== 'unknown' ? row.kind : '', row.label ?? '', row.where, row.id]
        .filter((s) => s)
        .join(' · ');
    return {
        label: `${icon} ${oneLine(row.text, 120)}`,
        description: [row.tier, row.anchorState, row.age, row.author].join(' · '),
        detail,
    };
}

/** What an empty answer means: "nothing matched" is not "nothing is known". */
export function emptyRecallMessage(query: string, result: {
    why_empty?: string;
    memory_exists: Record<string, { live: number }>;
}): string {
    if (result.why_empty) return `engram: ${result.why_empty}.`;
    const live = Object.values(result.memory_exists).reduce((n, t) => n + t.live, 0);
    if (live === 0) return 'engram: this workspace has no memories yet. Use "engram: Remember" to record one.';
    return query.trim()
        ? `engram: no memory matched "${query.trim()}" (${live} live in the stores).`
        : `engram: no memory to list (${live} live in the stores).`;
}
