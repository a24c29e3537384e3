// Locating memories in code: which claims sit on the symbol under the
// cursor, and where a claim's anchor is now.
import { AnchorEntry, Claim, LspPosition, LspRange } from './wire';

function contains(r: LspRange, p: LspPosition): boolean {
    const afterStart = p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character);
    const beforeEnd = p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character);
    return afterStart && beforeEnd;
}

function span(r: LspRange): number {
    // Lines dominate; characters only break ties within a line.
    return (r.end.line - r.start.line) * 1e6 + (r.end.character - r.start.character);
}

function sameRange(a: LspRange, b: LspRange): boolean {
    return (
        a.start.line === b.start.line &&
        a.start.character === b.start.character &&
        a.end.line === b.end.line &&
        a.end.character === b.end.character
    );
}

/**
 * The claims on the innermost anchored symbol around `pos`: the method's
 * memories rather than its class's when the cursor is in the method.
 */
export function memoriesAt(entries: AnchorEntry[], pos: LspPosition): AnchorEntry[] {
    const around = entries.filter((e) => e.range && contains(e.range, pos));
    if (!around.length) return [];
    const inner = around.reduce((best, e) => (span(e.range!) < span(best.range!) ? e : best));
    return around.filter((e) => sameRange(e.range!, inner.range!));
}

/** Unverified memories first: they are the ones that need a decision. */
export function unverifiedFirst(entries: AnchorEntry[]): AnchorEntry[] {
    const rank = (e: AnchorEntry) => (e.anchor_state === 'intact' ? 1 : 0);
    return [...entries].sort((a, b) => rank(a) - rank(b) || a.claim_id.localeCompare(b.claim_id));
}

export type AnchorTarget =
    | { kind: 'lines'; path: string; line: number }
    | { kind: 'symbol'; path: string; symbol: string }
    | { kind: 'file'; path: string }
    | { kind: 'claim' };

/** Where choosing a claim should go; a claim without an anchor opens its file. */
export function anchorTarget(claim: Pick<Claim, 'anchors'>): AnchorTarget {
    const a = claim.anchors[0];
    if (!a) return { kind: 'claim' };
    if (a.symbol) return { kind: 'symbol', path: a.path, symbol: a.symbol };
    if (a.range) return { kind: 'lines', path: a.path, line: a.range.start_line - 1 };
    return { kind: 'file', path: a.path };
}

/**
 * Where a claim's symbol anchor is now, from engram/anchors for the file it
 * was anchored in. A symbol that moved to another file is reported as
 * "path#symbol" and its range is in that file.
 */
export function currentLocation(
    entries: AnchorEntry[],
    claimId: string,
    anchorPath: string,
): { path: string; range?: LspRange } | undefined {
    const e = entries.find((x) => x.claim_id === claimId);
    if (!e) return undefined;
    const hash = e.moved_to?.indexOf('#') ?? -1;
    const path = e.moved_to && hash > 0 ? e.moved_to.slice(0, hash) : anchorPath;
    return { path, range: e.range };
}
