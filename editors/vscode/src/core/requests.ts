// The parameters of every engram request the extension sends, built from
// plain editor state (URIs, 0-based LSP positions), so the protocol test can
// send exactly what the extension sends.
import { LspPosition, LspRange } from './wire';

/** engram's methods (LSP requests). */
export const Method = {
    remember: 'engram/remember',
    recall: 'engram/recall',
    get: 'engram/get',
    retract: 'engram/retract',
    reverify: 'engram/reverify',
    anchors: 'engram/anchors',
    status: 'engram/status',
    delegate: 'engram/delegate',
    check: 'engram/check',
    inbox: 'engram/inbox',
} as const;

/** Who a write is recorded as: the setting, else the signed-in user. */
export function agentName(setting: string, username: string): string {
    const s = setting.trim();
    if (s) return s;
    return `human:${username.trim() || 'unknown'}`;
}

export interface RememberInput {
    text: string;
    agent: string;
    uri: string;
    cursor: LspPosition;
    /** The editor's selection; empty (start equals end) means "the symbol at the cursor". */
    selection?: LspRange;
}

function isEmpty(r: LspRange): boolean {
    return r.start.line === r.end.line && r.start.character === r.end.character;
}

/**
 * A selection becomes a line-range anchor; no selection anchors the
 * innermost definition around the cursor (engram resolves the position).
 */
export function rememberParams(input: RememberInput): Record<string, unknown> {
    const text = input.text.trim();
    if (!text) throw new Error('a memory needs some text');
    const sel = input.selection;
    let anchor: Record<string, unknown>;
    if (sel && !isEmpty(sel)) {
        // A selection that ends at the start of a line (a whole-line
        // selection) does not include that line.
        const endLine =
            sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : sel.end.line;
        anchor = {
            uri: input.uri,
            range: { start: { line: sel.start.line, character: 0 }, end: { line: endLine, character: 0 } },
        };
    } else {
        anchor = { uri: input.uri, position: { line: input.cursor.line, character: input.cursor.character } };
    }
    return { text, agent: input.agent, anchors: [anchor] };
}

export interface RecallInput {
    query: string;
    /** The document in focus: its claims rank higher. Only a document inside the folder. */
    focusUri?: string;
    limit?: number;
    /** project or medulla; absent: both. */
    tier?: string;
    kinds?: string[];
}

/** The most rows one recall returns (engram refuses more). */
export const recallLimit = 200;

/** An empty query lists the workspace's memory rather than searching it. */
export function recallParams(input: RecallInput): Record<string, unknown> {
    const params: Record<string, unknown> = { limit: Math.min(input.limit ?? 50, recallLimit) };
    const query = input.query.trim();
    if (query) params.query = query;
    if (input.focusUri) params.uri = input.focusUri;
    if (input.tier) params.tier = input.tier;
    if (input.kinds?.length) params.kinds = input.kinds;
    return params;
}

/** The workspace's findings, as `engram check` reports them. */
export function checkParams(maxFindings = 500): Record<string, unknown> {
    return { max_findings: maxFindings };
}

export function inboxParams(): Record<string, unknown> {
    return {};
}

export function getParams(id: string): Record<string, unknown> {
    return { id };
}

export function reverifyParams(id: string, agent: string, note?: string): Record<string, unknown> {
    const params: Record<string, unknown> = { id, agent };
    if (note && note.trim()) params.note = note.trim();
    return params;
}

export function retractParams(id: string, agent: string, reason: string): Record<string, unknown> {
    if (!reason.trim()) throw new Error('retracting needs a reason');
    return { id, agent, reason: reason.trim() };
}

export function anchorsParams(uri: string): Record<string, unknown> {
    return { uri };
}

export function statusParams(): Record<string, unknown> {
    return {};
}

/** The packet is scoped to the file in focus when there is one. */
export function delegateParams(task: string, agent: string, paths: string[]): Record<string, unknown> {
    if (!task.trim()) throw new Error('a delegation needs a task');
    const params: Record<string, unknown> = { task: task.trim(), agent };
    if (paths.length) params.paths = paths;
    return params;
}
