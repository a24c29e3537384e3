// The Memories view in the Explorer: each folder's claims by file and symbol
// (worst state first), the findings on no claim's code (instruction files,
// broken claim files) and the open reports. It reads recall, check and the
// inbox when shown; never on a timer. After a diagnostics change (an edit
// drifted something) it reads recall again, which is cheap at any store size
// (the newest rows, each checked against the code); `check` walks every
// anchored claim, so it is read again only after a write, a claim file
// changed on disk (another process wrote), or an explicit refresh; past
// engram.memories.findingsLimit claims, only on an explicit refresh.
import * as path from 'path';
import * as vscode from 'vscode';
import { ClaimRef, report, retractClaim, reverifyClaim } from './claimActions';
import {
    buildTree,
    claimDescription,
    ClaimLeaf,
    describeFilter,
    FileGroup,
    Filter,
    FindingGroup,
    FindingLeaf,
    isFiltered,
    MemoryTree,
    missingIds,
    needingAttention,
    noFilter,
    recallTier,
    ReportGroup,
    ReportLeaf,
    rowFromGet,
    SymbolGroup,
} from './core/memoryTree';
import { checkParams, getParams, inboxParams, Method, recallLimit, recallParams } from './core/requests';
import { CheckResult, GetResult, InboxResult, RecallResult } from './core/wire';
import { openAnchor, openClaimFile, show, toRange } from './navigate';
import { ServerPool } from './pool';
import { FolderServer } from './server';

interface Info {
    type: 'info';
    text: string;
    detail?: string;
}
interface FolderNode {
    type: 'folder';
}
type Item = FolderNode | FileGroup | SymbolGroup | ClaimLeaf | FindingGroup | FindingLeaf | ReportGroup | ReportLeaf | Info;

/** A tree element: what it shows, and whose memory it is. */
export interface Node {
    server: FolderServer;
    item: Item;
}

type Loaded = { tree: MemoryTree; findingsNote?: Info } | { error: string };

/** What the view says about findings it did not read, or read a while ago. */
function findingsNote(live: number, limit: number, read: Date | undefined, stale: boolean): Info | undefined {
    if (live <= limit) return undefined;
    const why = `${live.toLocaleString('en')} claims: check walks every anchored claim`;
    if (!read) return { type: 'info', text: 'Findings not read yet: Refresh reads them', detail: why };
    if (stale)
        return { type: 'info', text: `Findings as of ${read.toLocaleTimeString()}: Refresh reads them again`, detail: why };
    return undefined;
}

/** What `check` and the inbox said, kept between claim-list reloads. */
interface Around {
    findings: CheckResult['findings'];
    inbox?: InboxResult['boxes'];
    /** When check ran; undefined when it was not asked (a large store). */
    read?: Date;
    /** A write or a claim-file change came after it. */
    stale: boolean;
}

/**
 * Past this many live project claims (engram.memories.findingsLimit),
 * `check`, which walks every anchored claim on the server's one thread
 * (about 0.4 s per 10,000 claims measured), runs only when Refresh asks for
 * it: at a million claims it would hold the server for most of a minute
 * after every write.
 */
function findingsLimit(server: FolderServer): number {
    return vscode.workspace.getConfiguration('engram', server.folder).get<number>('memories.findingsLimit', 20_000);
}

const stateIcons: Record<string, [string, string | undefined]> = {
    conflicted: ['git-merge', 'problemsErrorIcon.foreground'],
    orphaned: ['error', 'problemsErrorIcon.foreground'],
    drifted: ['warning', 'problemsWarningIcon.foreground'],
    unjudged: ['question', 'problemsInfoIcon.foreground'],
    moved: ['arrow-swap', 'problemsInfoIcon.foreground'],
    intact: ['pass', 'testing.iconPassed'],
    unanchored: ['circle-outline', undefined],
};

function stateIcon(state: string): vscode.ThemeIcon {
    const [id, color] = stateIcons[state] ?? ['question', undefined];
    return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

function oneLine(s: string, max: number): string {
    const flat = s.replace(/\s+/g, ' ').trim();
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const states = ['conflicted', 'orphaned', 'drifted', 'unjudged', 'moved', 'intact', 'unanchored'];
const kinds = ['fact', 'decision', 'convention', 'gotcha', 'preference', 'todo'];
const tiers = ['project', 'medulla'];

/** engram's diagnostics in the folder's files, as (code, claim id): the unsaved drift. */
function engramDiagnostics(server: FolderServer): { code: string; claim_id: string }[] {
    const out: { code: string; claim_id: string }[] = [];
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
        if (vscode.workspace.getWorkspaceFolder(uri)?.uri.toString() !== server.folder.uri.toString()) continue;
        for (const d of diagnostics) {
            // The language client keeps the LSP diagnostic's data on it.
            const data = (d as { data?: { claim_id?: unknown } }).data;
            const code = typeof d.code === 'object' ? String(d.code.value) : String(d.code ?? '');
            if (d.source === 'engram' && typeof data?.claim_id === 'string') out.push({ code, claim_id: data.claim_id });
        }
    }
    return out;
}

export class MemoriesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
    static readonly id = 'engram.memories';
    private readonly changed = new vscode.EventEmitter<Node | undefined>();
    readonly onDidChangeTreeData = this.changed.event;
    private readonly view: vscode.TreeView<Node>;
    private readonly loaded = new Map<string, Promise<Loaded>>();
    private readonly around = new Map<string, Around>();
    /** Folders whose findings Refresh asked for, whatever the store's size. */
    private readonly asked = new Set<string>();
    /** Reads of the findings under way, so a burst of reloads asks once. */
    private readonly reading = new Map<string, Promise<Around>>();
    /** Counts writes seen: a read that started before the last one is stale when it ends. */
    private writes = 0;
    private readonly subscriptions: vscode.Disposable[] = [];
    private filter: Filter;
    private timer: NodeJS.Timeout | undefined;
    /** A reload waiting for the burst to end must read the findings too. */
    private pendingFull = false;
    /** Something changed while the view was hidden: reload when it shows. */
    private stale = false;
    /** The team stores recall has read (team:NAME), offered by the tier filter. */
    private readonly teamTiers = new Set<string>();

    constructor(
        private readonly pool: ServerPool,
        private readonly state: vscode.Memento,
    ) {
        this.filter = state.get<Filter>('engram.memories.filter', noFilter);
        this.view = vscode.window.createTreeView(MemoriesView.id, { treeDataProvider: this, showCollapseAll: true });
        const claims = vscode.workspace.createFileSystemWatcher('**/.engram/claims/*.md');
        this.subscriptions.push(
            this.view,
            claims,
            claims.onDidChange(() => this.refreshSoon(true)),
            claims.onDidCreate(() => this.refreshSoon(true)),
            claims.onDidDelete(() => this.refreshSoon(true)),
            pool.onDidChange(() => this.refreshSoon(true)),
            // Drift follows edits, unsaved ones too: the server republishes.
            vscode.languages.onDidChangeDiagnostics(() => this.refreshSoon(false)),
            this.view.onDidChangeVisibility((e) => {
                if (e.visible && this.stale) this.refresh(false);
            }),
        );
        this.showFilter();
    }

    register(context: vscode.ExtensionContext): void {
        const commands: [string, (node?: Node) => unknown][] = [
            ['engram.memories.refresh', () => this.refreshAll()],
            ['engram.memories.filter', () => this.chooseFilter()],
            ['engram.memories.clearFilter', () => this.setFilter(noFilter)],
            ['engram.memories.open', (n) => this.open(n)],
            ['engram.memories.openClaim', (n) => this.onClaim(n, (s, c) => openClaimFile(s, c.id))],
            ['engram.memories.reverify', (n) => this.onClaim(n, reverifyClaim)],
            ['engram.memories.retract', (n) => this.onClaim(n, retractClaim)],
        ];
        for (const [id, fn] of commands) context.subscriptions.push(vscode.commands.registerCommand(id, fn));
    }

    /** Bursts (typing republishes diagnostics per change) make one reload. */
    private refreshSoon(full: boolean): void {
        this.pendingFull ||= full;
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => {
            const f = this.pendingFull;
            this.pendingFull = false;
            this.refresh(f);
        }, 400);
    }

    /** `full`: the findings and the inbox too, not only the claims. */
    refresh(full = true): void {
        if (full) {
            this.writes++;
            for (const a of this.around.values()) a.stale = true;
        }
        if (!this.view.visible) {
            this.stale = true;
            return;
        }
        this.stale = false;
        this.loaded.clear();
        this.changed.fire(undefined);
    }

    /** The Refresh button: everything, the findings of a large store too. */
    private refreshAll(): void {
        for (const s of this.pool.all()) this.asked.add(s.folder.uri.toString());
        this.refresh(true);
    }

    /** The findings and the inbox, read again when stale (see findingsLimit). */
    private readAround(server: FolderServer, live: number): Promise<Around> {
        const key = server.folder.uri.toString();
        const kept = this.around.get(key);
        const asked = this.asked.delete(key);
        if (kept && !kept.stale && !asked) return Promise.resolve(kept);
        const under = this.reading.get(key);
        if (under && !asked) return under;
        const read = this.readAroundNow(server, live, kept, asked).finally(() => {
            if (this.reading.get(key) === read) this.reading.delete(key);
        });
        this.reading.set(key, read);
        return read;
    }

    private async readAroundNow(server: FolderServer, live: number, kept: Around | undefined, asked: boolean): Promise<Around> {
        const writes = this.writes;
        const inbox = server.request<InboxResult>(Method.inbox, inboxParams()).then(
            (r) => r.boxes,
            () => undefined,
        );
        let around: Around;
        if (live > findingsLimit(server) && !asked) {
            // Kept as they were read (the view says when), or not read yet.
            around = { findings: kept?.findings ?? [], read: kept?.read, inbox: await inbox, stale: !!kept };
        } else {
            const checked = await server.request<CheckResult>(Method.check, checkParams());
            // A write during the read may be missing from it.
            around = { findings: checked.findings, inbox: await inbox, read: new Date(), stale: writes !== this.writes };
        }
        this.around.set(server.folder.uri.toString(), around);
        return around;
    }

    private showFilter(): void {
        this.view.description = isFiltered(this.filter) ? `filtered: ${describeFilter(this.filter)}` : undefined;
        void vscode.commands.executeCommand('setContext', 'engram.memories.filtered', isFiltered(this.filter));
    }

    private async setFilter(f: Filter): Promise<void> {
        this.filter = f;
        await this.state.update('engram.memories.filter', f);
        this.showFilter();
        this.loaded.clear();
        this.changed.fire(undefined);
    }

    private async chooseFilter(): Promise<void> {
        type Pick = vscode.QuickPickItem & { group?: keyof Filter; value?: string };
        const section = (label: string): Pick => ({ label, kind: vscode.QuickPickItemKind.Separator });
        const option = (group: keyof Filter, value: string): Pick => ({
            label: value,
            group,
            value,
            picked: this.filter[group].includes(value),
        });
        const items: Pick[] = [
            section('State'),
            ...states.map((s) => option('states', s)),
            section('Kind'),
            ...kinds.map((k) => option('kinds', k)),
            section('Tier'),
            ...[...tiers, ...[...this.teamTiers].sort()].map((t) => option('tiers', t)),
        ];
        const picked = await vscode.window.showQuickPick(items, {
            title: 'engram: show only memories that are…',
            placeHolder: 'Nothing picked in a section: all of it',
            canPickMany: true,
        });
        if (!picked) return;
        const f: Filter = { states: [], kinds: [], tiers: [] };
        for (const p of picked) if (p.group && p.value) f[p.group].push(p.value);
        await this.setFilter(f);
    }

    private load(server: FolderServer): Promise<Loaded> {
        const key = server.folder.uri.toString();
        let p = this.loaded.get(key);
        if (!p) {
            p = this.fetch(server);
            this.loaded.set(key, p);
        }
        return p;
    }

    private async fetch(server: FolderServer): Promise<Loaded> {
        if (server.state !== 'running') return { error: `engram is ${server.state} for ${server.folder.name}` };
        try {
            const recalled = await server.request<RecallResult>(
                Method.recall,
                recallParams({ query: '', limit: recallLimit, tier: recallTier(this.filter), kinds: this.filter.kinds }),
            );
            const live = recalled.memory_exists?.project?.live ?? 0;
            for (const tier of Object.keys(recalled.memory_exists ?? {}))
                if (tier.startsWith('team:')) this.teamTiers.add(tier);
            const { findings, inbox, read, stale } = await this.readAround(server, live);
            // Claims findings name that the newest rows miss (a large store).
            const named = [...engramDiagnostics(server), ...findings];
            const more = await Promise.all(
                missingIds(recalled.rows, named, 100).map((id) =>
                    server.request<GetResult>(Method.get, getParams(id)).then(
                        (g) => rowFromGet(g.claim, Date.now()),
                        () => undefined, // retracted since, or unreadable: check lists it
                    ),
                ),
            );
            const rows = [...recalled.rows, ...more.filter((r) => r !== undefined)];
            const tree = buildTree(rows, findings, this.filter, recalled.truncated, inbox);
            return { tree, findingsNote: findingsNote(live, findingsLimit(server), read, stale) };
        } catch (err) {
            return { error: err instanceof Error ? err.message : String(err) };
        }
    }

    async getChildren(node?: Node): Promise<Node[]> {
        if (!node) {
            const servers = this.pool.all();
            if (servers.length === 1) return this.folderChildren(servers[0]);
            return servers.map((server) => ({ server, item: { type: 'folder' } }));
        }
        const { server, item } = node;
        const wrap = (items: Item[]): Node[] => items.map((i) => ({ server, item: i }));
        switch (item.type) {
            case 'folder':
                return this.folderChildren(server);
            case 'file':
                // Claims on the whole file or a line range have no symbol to group under.
                return wrap(item.symbols.flatMap((g): Item[] => (g.name ? [g] : g.claims)));
            case 'symbol':
                return wrap(item.claims);
            case 'findings':
                return wrap(item.findings);
            case 'reports':
                return wrap(item.reports);
            default:
                return [];
        }
    }

    private async folderChildren(server: FolderServer): Promise<Node[]> {
        const loaded = await this.load(server);
        const wrap = (items: Item[]): Node[] => items.map((i) => ({ server, item: i }));
        if ('error' in loaded) return wrap([{ type: 'info', text: loaded.error }]);
        const { tree } = loaded;
        const attention = tree.files.flatMap((f) => f.symbols.flatMap((s) => s.claims));
        if (this.pool.all().length === 1) {
            const n = needingAttention(attention);
            this.view.badge = n ? { value: n, tooltip: `${n} memories need checking` } : undefined;
        }
        const items: Item[] = [...tree.files, ...tree.other];
        if (tree.reports) items.push(tree.reports);
        if (loaded.findingsNote) items.unshift(loaded.findingsNote);
        // Said first: the list is not the whole store.
        if (tree.truncated)
            items.unshift({
                type: 'info',
                text: `Showing the ${recallLimit} newest memories`,
                detail: 'Filter by state, kind or tier to see others.',
            });
        // No claim to list says so first, even with findings below (the
        // filter is about claims: findings and reports stay).
        if (!tree.files.length)
            items.unshift({
                type: 'info',
                text: isFiltered(this.filter) ? 'No memory matches the filter' : 'No memories yet',
                detail: isFiltered(this.filter) ? undefined : 'engram: Remember… records one for the code at the cursor.',
            });
        return wrap(items);
    }

    getTreeItem({ server, item }: Node): vscode.TreeItem {
        const root = server.folder.uri.fsPath;
        const key = `${server.folder.uri.toString()}|`;
        switch (item.type) {
            case 'folder': {
                const t = new vscode.TreeItem(server.folder.name, vscode.TreeItemCollapsibleState.Expanded);
                t.iconPath = new vscode.ThemeIcon('root-folder');
                t.id = `${key}folder`;
                return t;
            }
            case 'file': {
                const claims = item.symbols.flatMap((s) => s.claims);
                const n = needingAttention(claims);
                const t = new vscode.TreeItem(
                    item.path ? path.basename(item.path) : 'Not anchored to code',
                    vscode.TreeItemCollapsibleState.Expanded,
                );
                if (item.path) t.resourceUri = vscode.Uri.file(path.join(root, item.path));
                const dir = item.path ? path.dirname(item.path) : '';
                t.description = [dir !== '.' ? dir : '', `${claims.length}`, n ? `${n} to check` : '']
                    .filter((s) => s)
                    .join(' · ');
                t.iconPath = item.path ? vscode.ThemeIcon.File : new vscode.ThemeIcon('note');
                t.id = `${key}file|${item.path}`;
                t.contextValue = 'engram.file';
                return t;
            }
            case 'symbol': {
                const t = new vscode.TreeItem(item.name, vscode.TreeItemCollapsibleState.Expanded);
                t.iconPath = new vscode.ThemeIcon('symbol-method');
                t.description = `${item.claims.length}`;
                t.id = `${key}symbol|${item.claims[0]?.at?.path ?? ''}|${item.name}`;
                return t;
            }
            case 'claim': {
                const t = new vscode.TreeItem(oneLine(item.text, 100), vscode.TreeItemCollapsibleState.None);
                t.description = claimDescription(item);
                t.iconPath = stateIcon(item.state);
                const md = new vscode.MarkdownString();
                md.appendText(item.text);
                md.appendMarkdown(`\n\n---\n\n**${item.state}** · ${item.kind} · ${item.age} · ${item.author}`);
                if (item.anchor) md.appendMarkdown(`\n\nanchored on \`${item.anchor}\``);
                if (item.conflict) md.appendMarkdown(`\n\n${item.conflict}`);
                md.appendMarkdown(`\n\n\`${item.id}\`${item.label ? ` · ${item.label}` : ''} · ${item.tier}`);
                t.tooltip = md;
                t.id = `${key}claim|${item.id}`;
                // Medulla claims are re-verified and retracted as project ones are.
                t.contextValue = 'engram.claim';
                t.command = { command: 'engram.memories.open', title: 'Open the code', arguments: [{ server, item }] };
                return t;
            }
            case 'findings': {
                const t = new vscode.TreeItem(item.title, vscode.TreeItemCollapsibleState.Expanded);
                t.description = `${item.findings.length}`;
                t.iconPath = new vscode.ThemeIcon(item.title === 'Instruction files' ? 'book' : 'file-code');
                t.id = `${key}findings|${item.title}`;
                return t;
            }
            case 'finding': {
                const t = new vscode.TreeItem(`${item.path}:${item.line}`, vscode.TreeItemCollapsibleState.None);
                t.description = oneLine(item.message, 120);
                t.tooltip = `${item.code}: ${item.message}`;
                t.iconPath = stateIcon(item.code === 'engram.dangling' ? 'orphaned' : item.code.replace('engram.', ''));
                t.command = { command: 'engram.memories.open', title: 'Open', arguments: [{ server, item }] };
                t.contextValue = 'engram.finding';
                return t;
            }
            case 'reports': {
                const t = new vscode.TreeItem('Reports', vscode.TreeItemCollapsibleState.Collapsed);
                t.description = `${item.reports.length} open`;
                t.iconPath = new vscode.ThemeIcon('inbox');
                t.id = `${key}reports`;
                return t;
            }
            case 'report': {
                const t = new vscode.TreeItem(oneLine(item.what, 100), vscode.TreeItemCollapsibleState.None);
                t.description = `${item.state.replace('_', ' ')} · ${item.filed}`;
                t.tooltip = `${item.id}: ${item.what}`;
                t.iconPath = new vscode.ThemeIcon('report');
                return t;
            }
            case 'info': {
                const t = new vscode.TreeItem(item.text, vscode.TreeItemCollapsibleState.None);
                t.description = item.detail;
                t.iconPath = new vscode.ThemeIcon('info');
                return t;
            }
        }
    }

    /** A claim: its code as it is now; a finding: its line. */
    private async open(node?: Node): Promise<void> {
        if (!node) return;
        const { server, item } = node;
        try {
            if (item.type === 'claim') await openAnchor(server, item);
            else if (item.type === 'finding') {
                await show(vscode.Uri.file(path.join(server.folder.uri.fsPath, item.path)), toRange(item.range));
            }
        } catch (err) {
            await report(err, Method.get, server);
        }
    }

    private async onClaim(node: Node | undefined, act: (s: FolderServer, c: ClaimRef) => Promise<void>): Promise<void> {
        if (node?.item.type !== 'claim') return;
        try {
            await act(node.server, { id: node.item.id, text: node.item.text, state: node.item.state });
        } catch (err) {
            await report(err, Method.get, node.server);
        }
        this.refresh();
    }

    dispose(): void {
        if (this.timer) clearTimeout(this.timer);
        for (const d of this.subscriptions) d.dispose();
        this.changed.dispose();
    }
}
