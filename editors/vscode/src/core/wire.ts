// The shapes of engram's answers, as far as the extension reads them.
//
// engram fills absent provenance with the string "unknown" rather than
// leaving it out, so fields a person sees are typed as strings and shown as
// they come; fields the extension only uses for navigation are optional.

export interface LspPosition {
    line: number;
    character: number;
}

export interface LspRange {
    start: LspPosition;
    end: LspPosition;
}

/** Where an anchor's code is now: the file (another one when it moved) and its range. */
export interface AnchorPlace {
    path: string;
    range: LspRange;
}

export interface ClaimAnchor {
    path: string;
    kind: string;
    symbol?: string;
    language?: string;
    /** 1-based lines; present on range anchors, absent on symbol and file anchors. */
    range?: { start_line: number; end_line: number };
    /** Recall rows: this anchor's state now. */
    state?: string;
    /** Recall rows: where its code is now; absent when orphaned (and from older servers). */
    current?: AnchorPlace;
}

export interface Claim {
    id: string;
    version: number;
    label: string | null;
    text: string;
    kind: string;
    status: string;
    created: string;
    source_agent: string;
    origin: string;
    anchors: ClaimAnchor[];
}

export interface RecallRow extends Claim {
    score: number;
    tier: string;
    stale: boolean | 'unknown';
    age: string;
    anchor_state: string;
    why: string[];
    /** Other live claims holding this label (two branches each wrote it). */
    label_shared_with?: string[];
}

export interface StoreInfo {
    tier: string;
    path: string;
    name: string;
    exists: boolean;
    index_ready: boolean;
    claims: { committed: number; frontier: number; retracted: number; superseded: number };
    anchors: number;
    broken_files: number;
    error?: string;
    /** A store in a git repository of its own (a team store, a medulla with a remote). */
    sync?: { remote: string; last_sync?: string; age?: string; error?: string; pending: string[] };
}

export interface Envelope {
    status: string;
    trust_mode: string;
    binding: { root: string; fingerprint: string; source: string; mismatch: boolean };
    store: StoreInfo[];
    next_suggested: string | null;
    session: { pid: number; version: string; started: string };
    non_claims?: string[];
    /** What the answer could not judge, by reason (absent when nothing). */
    not_judged?: { total: number; by_reason: Record<string, number> };
}

export interface RecallResult {
    rows: RecallRow[];
    memory_exists: Record<string, { live: number; other: number }>;
    truncated: boolean;
    why_empty?: string;
    envelope: Envelope;
}

export interface AnchorHealth {
    intact: number;
    drifted: number;
    moved: number;
    orphaned: number;
    /** Not judged (a file past 16 MiB, no grammar...): envelope.not_judged says why. Absent from older servers. */
    unjudged?: number;
}

/** The bound project's reports by state (engram/report, engram/inbox). */
export interface InboxCounts {
    open: number;
    in_progress: number;
    answered: number;
    external: number;
    answers: number;
}

export interface StatusResult {
    envelope: Envelope;
    anchor_health: AnchorHealth;
    broken_files: { file: string; problem: string }[];
    /** Absent from servers older than the inbox. */
    inbox?: InboxCounts;
}

/** One entry of `engram/anchors`: a claim anchored in the asked-for file. */
export interface AnchorEntry {
    claim_id: string;
    label: string | null;
    text: string;
    anchor: number;
    symbol: string;
    anchor_state: string;
    source_agent: string;
    age: string;
    moved_to?: string;
    range?: LspRange;
}

export interface AnchorsResult {
    anchors: AnchorEntry[];
}

export interface GetResult {
    claim: Claim & { tier: string; file: string; anchor_state: string };
    history: Claim[];
}

export interface RememberResult {
    claim: Claim;
    tier: string;
    superseded: Claim | null;
}

/** One finding of engram/check (the same as `engram check --format json`). */
export interface Finding {
    code: string;
    severity: string;
    claim_id: string;
    label: string;
    tier: string;
    path: string;
    symbol: string;
    message: string;
    range: LspRange;
    claim_file: string;
    replacement: string;
}

export interface CheckResult {
    findings: Finding[];
    summary: Record<string, number>;
    unlisted: number;
}

export interface InboxReport {
    id: string;
    what: string;
    state: string;
    filed: string;
}

export interface InboxBox {
    name: string;
    reports: InboxReport[];
}

export interface InboxResult {
    boxes: InboxBox[];
}

/** A JSON-RPC error as vscode-jsonrpc's ResponseError carries it. */
export interface RpcError {
    code: number;
    message: string;
    data?: { kind?: string; [key: string]: unknown };
}
