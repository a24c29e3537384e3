// The Memories view's model, without VS Code: the workspace's claims grouped
// by the file and symbol their code is in now, the findings that are not on a
// claim's code (instruction files, broken claim files) and the open reports.
// What needs a person comes first: within each level, groups and claims are
// ordered worst state first, so a drifted claim is never below the fold.
import { anchorText } from './rows';
import { AnchorPlace, ClaimAnchor, Finding, GetResult, InboxBox, RecallRow } from './wire';

/** A claim's state as the view shows it: its anchor state, or conflicted when a finding says so. */
export type ViewState = 'conflicted' | 'orphaned' | 'drifted' | 'unjudged' | 'moved' | 'intact' | 'unanchored';

// Not judged is not known good: above moved, as the server ranks it.
const rank: Record<string, number> = {
    conflicted: 6,
    orphaned: 5,
    drifted: 4,
    unjudged: 3,
    moved: 2,
    unanchored: 1,
    intact: 0,
};

export function worse(a: ViewState, b: ViewState): ViewState {
    return (rank[a] ?? 0) >= (rank[b] ?? 0) ? a : b;
}

export interface Filter {
    /** Empty: every state. */
    states: string[];
    /** Empty: every kind. */
    kinds: string[];
    /** Which tiers recall lists: project, medulla, team:NAME, or all the default reads (empty). */
    tiers: string[];
}

export const noFilter: Filter = { states: [], kinds: [], tiers: [] };

export function isFiltered(f: Filter): boolean {
    return f.states.length + f.kinds.length + f.tiers.length > 0;
}

/** "drifted, orphaned · fact · medulla", or '' without a filter. */
export function describeFilter(f: Filter): string {
    return [f.states, f.kinds, f.tiers]
        .filter((l) => l.length)
        .map((l) => l.join(', '))
        .join(' · ');
}

/** recall's tier parameter for a filter: absent means project and medulla. */
export function recallTier(f: Filter): string | undefined {
    return f.tiers.length === 1 ? f.tiers[0] : undefined;
}

export interface ClaimLeaf {
    type: 'claim';
    id: string;
    text: string;
    label: string | null;
    kind: string;
    tier: string;
    state: ViewState;
    age: string;
    author: string;
    /** Where the code is now (recall's `current`), when it has a place. */
    at?: AnchorPlace;
    /** "src/auth.py#TokenValidator.validate" as anchored. */
    anchor: string;
    /** As recall gave them (the first one's `current` is `at`). */
    anchors: ClaimAnchor[];
    /** Why it is conflicted, when it is. */
    conflict?: string;
}

export interface SymbolGroup {
    type: 'symbol';
    name: string;
    worst: ViewState;
    claims: ClaimLeaf[];
}

export interface FileGroup {
    type: 'file';
    /** Workspace-relative; '' for claims anchored to nothing. */
    path: string;
    worst: ViewState;
    /** Symbol groups; claims on the whole file or a line range sit in a group named ''. */
    symbols: SymbolGroup[];
}

export interface FindingLeaf {
    type: 'finding';
    code: string;
    path: string;
    line: number;
    message: string;
    range: Finding['range'];
}

export interface FindingGroup {
    type: 'findings';
    title: string;
    findings: FindingLeaf[];
}

export interface ReportLeaf {
    type: 'report';
    id: string;
    what: string;
    state: string;
    filed: string;
}

export interface ReportGroup {
    type: 'reports';
    reports: ReportLeaf[];
}

export interface MemoryTree {
    files: FileGroup[];
    /** Findings that are on no claim's code: instruction files, broken claim files. */
    other: FindingGroup[];
    reports?: ReportGroup;
    /** How many claims the stores hold that the list does not show (recall's limit). */
    truncated: boolean;
}

/** Claim ids a conflict finding names, with what it says. */
function conflicts(findings: Finding[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const f of findings)
        if ((f.code === 'engram.conflict' || f.code === 'engram.unmerged') && f.claim_id)
            out.set(f.claim_id, f.message);
    return out;
}

function leaf(row: RecallRow, conflict: string | undefined): ClaimLeaf {
    const first = row.anchors[0];
    let state = (row.anchor_state || 'unanchored') as ViewState;
    if (row.label_shared_with?.length) conflict ??= `its label is also held by ${row.label_shared_with.join(', ')}`;
    if (conflict) state = 'conflicted';
    return {
        type: 'claim',
        id: row.id,
        text: row.text,
        label: row.label,
        kind: row.kind,
        tier: row.tier,
        state,
        age: row.age,
        author: row.source_agent,
        at: first?.current ? { path: first.current.path, range: first.current.range } : undefined,
        anchor: anchorText(first),
        anchors: row.anchors,
        conflict,
    };
}

function byWorstThen<T>(worst: (t: T) => string, name: (t: T) => string): (a: T, b: T) => number {
    return (a, b) => (rank[worst(b)] ?? 0) - (rank[worst(a)] ?? 0) || name(a).localeCompare(name(b));
}

const instructionCodes = new Set(['engram.dangling', 'engram.drifted', 'engram.moved']);

export function buildTree(
    rows: RecallRow[],
    findings: Finding[],
    filter: Filter,
    truncated: boolean,
    inbox?: InboxBox[],
): MemoryTree {
    const conflicted = conflicts(findings);
    const files = new Map<string, Map<string, ClaimLeaf[]>>();
    for (const row of rows) {
        if (filter.kinds.length && !filter.kinds.includes(row.kind)) continue;
        if (filter.tiers.length && !filter.tiers.includes(row.tier)) continue;
        const c = leaf(row, conflicted.get(row.id));
        if (filter.states.length && !filter.states.includes(c.state)) continue;
        // The file the code is in now (a moved symbol's new file), else the anchored one.
        const first = row.anchors[0];
        const file = c.at?.path ?? first?.path ?? '';
        const symbol = first?.symbol ?? '';
        const symbols = files.get(file) ?? new Map<string, ClaimLeaf[]>();
        files.set(file, symbols);
        symbols.set(symbol, [...(symbols.get(symbol) ?? []), c]);
    }
    const fileGroups: FileGroup[] = [...files].map(([path, symbols]) => {
        const groups: SymbolGroup[] = [...symbols].map(([name, claims]) => {
            // Worst first; within a state, recall's order (newest first).
            claims.sort((a, b) => (rank[b.state] ?? 0) - (rank[a.state] ?? 0));
            return { type: 'symbol', name, claims, worst: claims.map((c) => c.state).reduce(worse) };
        });
        groups.sort(byWorstThen((g) => g.worst, (g) => g.name));
        return { type: 'file', path, symbols: groups, worst: groups.map((g) => g.worst).reduce(worse) };
    });
    // Claims on no code last: nothing can drift under them.
    fileGroups.sort((a, b) => Number(a.path === '') - Number(b.path === '') || byWorstThen<FileGroup>((g) => g.worst, (g) => g.path)(a, b));

    // What is on no claim's code: an instruction file's references, and
    // claim files that cannot be read as claims.
    const instructions: FindingLeaf[] = [];
    const claimFiles: FindingLeaf[] = [];
    for (const f of findings) {
        const item: FindingLeaf = {
            type: 'finding',
            code: f.code,
            path: f.path,
            line: f.range.start.line + 1,
            message: f.message,
            range: f.range,
        };
        if (!f.claim_id && instructionCodes.has(f.code)) instructions.push(item);
        else if (f.code === 'engram.invalid' || f.code === 'engram.secret') claimFiles.push(item);
    }
    const other: FindingGroup[] = [];
    if (instructions.length) other.push({ type: 'findings', title: 'Instruction files', findings: instructions });
    if (claimFiles.length) other.push({ type: 'findings', title: 'Claim files', findings: claimFiles });

    const open = (inbox ?? [])
        .flatMap((b) => b.reports)
        .filter((r) => r.state === 'open' || r.state === 'in_progress')
        .map((r): ReportLeaf => ({ type: 'report', id: r.id, what: r.what, state: r.state, filed: r.filed }));
    return {
        files: fileGroups,
        other,
        reports: open.length ? { type: 'reports', reports: open } : undefined,
        truncated,
    };
}

/** The line under a claim: "drifted · 3 days ago · claude:ana", plus the tier when not the project's. */
export function claimDescription(c: ClaimLeaf): string {
    return [c.state, c.age, c.author, c.tier !== 'project' ? c.tier : ''].filter((s) => s).join(' · ');
}

/** How many claims a group holds that need a person (anything but intact and unanchored). */
export function needingAttention(claims: ClaimLeaf[]): number {
    return claims.filter((c) => c.state !== 'intact' && c.state !== 'unanchored').length;
}

/** An age as engram writes one: "just now", "5 minutes", "3 days", "2 months". */
export function humanAge(seconds: number): string {
    const s = Math.max(0, Math.floor(seconds));
    const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
    if (s < 60) return 'just now';
    if (s < 3600) return unit(Math.floor(s / 60), 'minute');
    if (s < 86400) return unit(Math.floor(s / 3600), 'hour');
    if (s < 86400 * 60) return unit(Math.floor(s / 86400), 'day');
    if (s < 86400 * 730) return unit(Math.floor(s / (86400 * 30)), 'month');
    return unit(Math.floor(s / (86400 * 365)), 'year');
}

/** The claims need a person only where a finding says so: drift, a conflict, a bad merge. */
const claimCodes = new Set(['engram.drifted', 'engram.orphaned', 'engram.moved', 'engram.conflict', 'engram.unmerged']);

/**
 * The claims findings name that recall's newest rows do not hold: in a
 * large store an old drifted claim is past the list's limit, yet it is the
 * one the view must show first. At most `cap`, in the findings' order. The
 * editor's engram diagnostics count as findings too (code and claim id):
 * they follow unsaved edits, which `check` is not asked about after each.
 */
export function missingIds(rows: RecallRow[], findings: Pick<Finding, 'code' | 'claim_id'>[], cap: number): string[] {
    const have = new Set(rows.map((r) => r.id));
    const out: string[] = [];
    for (const f of findings) {
        if (out.length >= cap) break;
        if (!f.claim_id || !claimCodes.has(f.code) || have.has(f.claim_id)) continue;
        have.add(f.claim_id);
        out.push(f.claim_id);
    }
    return out;
}

/** engram/get's claim as a recall row (no score, no reasons), its age counted from `nowMs`. */
export function rowFromGet(claim: GetResult['claim'], nowMs: number): RecallRow {
    const created = Date.parse(claim.created);
    return {
        ...claim,
        score: 0,
        stale: 'unknown',
        age: Number.isNaN(created) ? 'unknown' : humanAge((nowMs - created) / 1000),
        why: [],
    };
}
