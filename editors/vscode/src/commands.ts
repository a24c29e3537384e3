// The commands a person runs: Remember, Recall, Show Memories for Symbol,
// Re-verify, Retract, Delegate, Status, Restart. The requests they send are
// built in core/requests.ts; this file is the VS Code side only.
import * as path from 'path';
import * as vscode from 'vscode';
import { memoriesAt, unverifiedFirst } from './core/anchors';
import {
    anchorsParams,
    delegateParams,
    Method,
    recallParams,
    rememberParams,
    statusParams,
} from './core/requests';
import { anchorText, emptyRecallMessage, fromAnchorEntry, fromRecallRow, memories, MemoryRow } from './core/rows';
import { runOnServer, showMemories } from './core/serverCommands';
import { statusReport, statusSummary } from './core/status';
import { AnchorEntry, AnchorsResult, LspPosition, RecallResult, RememberResult, StatusResult } from './core/wire';
import { openAnchor, openClaimFile, pickMemory } from './navigate';
import { ServerPool } from './pool';
import { report, retractClaim, reverifyClaim } from './claimActions';
import { FolderServer } from './server';

function lspPosition(p: vscode.Position): LspPosition {
    return { line: p.line, character: p.character };
}

export class Commands {
    constructor(
        private readonly pool: ServerPool,
        private readonly output: vscode.OutputChannel,
    ) {}

    register(context: vscode.ExtensionContext): void {
        const commands: [string, (...args: never[]) => unknown][] = [
            ['engram.remember', () => this.remember()],
            ['engram.recall', () => this.recall()],
            [showMemories, (lens?: { ids: string[]; uri: string }) => this.showMemoriesCommand(lens)],
            ['engram.reverify', () => this.reverify()],
            ['engram.retract', () => this.retract()],
            ['engram.delegate', () => this.delegate()],
            ['engram.status', () => this.status()],
            ['engram.restart', () => this.pool.restartAll()],
            ['engram.showOutput', () => this.output.show(true)],
            [runOnServer, (folder: string, command: string, ...args: unknown[]) =>
                this.runServerCommand(folder, command, ...args)],
        ];
        for (const [id, fn] of commands) context.subscriptions.push(vscode.commands.registerCommand(id, fn));
    }

    /** The active editor's file and its folder's server, or a message saying why not. */
    private activeFile(purpose: string): { editor: vscode.TextEditor; server: FolderServer } | undefined {
        const editor = vscode.window.activeTextEditor;
        if (!editor || editor.document.uri.scheme !== 'file') {
            void vscode.window.showWarningMessage(`engram: open a file ${purpose}.`);
            return undefined;
        }
        const server = this.pool.forDocument(editor.document.uri);
        if (!server) {
            void vscode.window.showWarningMessage('engram: this file is not in a workspace folder, so it has no memory.');
            return undefined;
        }
        return { editor, server };
    }

    private async remember(): Promise<void> {
        const at = this.activeFile('to remember something about its code');
        if (!at) return;
        const { editor, server } = at;
        const sel = editor.selection;
        const what = sel.isEmpty ? 'the code at the cursor' : `lines ${sel.start.line + 1}–${sel.end.line + 1}`;
        const text = await vscode.window.showInputBox({
            title: 'engram: Remember',
            prompt: `What should be remembered about ${what}?`,
            placeHolder: 'validate() returns ok=False for expired tokens; callers must check .ok',
            ignoreFocusOut: true,
            validateInput: (v) => (v.trim() ? undefined : 'Write down what you learned.'),
        });
        if (!text) return;
        try {
            const params = rememberParams({
                text,
                agent: server.agent,
                uri: editor.document.uri.toString(),
                cursor: lspPosition(sel.active),
                selection: sel.isEmpty ? undefined : { start: lspPosition(sel.start), end: lspPosition(sel.end) },
            });
            const result = await server.request<RememberResult>(Method.remember, params);
            server.touched();
            const anchor = anchorText(result.claim.anchors[0]);
            const on = anchor ? ` on ${anchor}` : '';
            const superseded = result.superseded ? ` (version ${result.claim.version})` : '';
            const choice = await vscode.window.showInformationMessage(
                `engram: remembered ${result.claim.id}${on}${superseded}.`,
                'Open Claim',
            );
            if (choice === 'Open Claim') await openClaimFile(server, result.claim.id);
        } catch (err) {
            await report(err, Method.remember, server);
        }
    }

    private async recall(): Promise<void> {
        const server = await this.pool.pick();
        if (!server) return;
        const query = await vscode.window.showInputBox({
            title: 'engram: Recall',
            prompt: 'Search the memory of this workspace (leave empty to list it)',
            placeHolder: 'how are expired tokens handled?',
        });
        if (query === undefined) return;
        try {
            const doc = vscode.window.activeTextEditor?.document;
            const focusUri = doc && this.pool.forDocument(doc.uri) === server ? doc.uri.toString() : undefined;
            const result = await server.request<RecallResult>(Method.recall, recallParams({ query, focusUri }));
            if (!result.rows.length) {
                void vscode.window.showInformationMessage(emptyRecallMessage(query, result));
                return;
            }
            const about = query.trim() ? ` for “${query.trim()}”` : '';
            const picked = await pickMemory(
                result.rows.map(fromRecallRow),
                `engram: ${memories(result.rows.length)}${about}`,
            );
            const claim = picked && result.rows.find((r) => r.id === picked.id);
            if (claim) await openAnchor(server, claim);
        } catch (err) {
            await report(err, Method.recall, server);
        }
    }

    /** The memories on the symbol under the cursor, or those a code lens names. */
    private async memoriesHere(
        lens?: { ids: string[]; uri: string },
    ): Promise<{ server: FolderServer; entries: AnchorEntry[]; relPath: string } | undefined> {
        let server: FolderServer | undefined;
        let uri: vscode.Uri;
        let cursor: LspPosition | undefined;
        if (lens) {
            uri = vscode.Uri.parse(lens.uri);
            server = this.pool.forDocument(uri);
        } else {
            const at = this.activeFile('to see the memories on its symbols');
            if (!at) return undefined;
            server = at.server;
            uri = at.editor.document.uri;
            cursor = lspPosition(at.editor.selection.active);
        }
        if (!server) return undefined;
        const found = await server.request<AnchorsResult>(Method.anchors, anchorsParams(uri.toString()));
        const entries = cursor
            ? memoriesAt(found.anchors, cursor)
            : found.anchors.filter((a) => lens?.ids.includes(a.claim_id));
        const relPath = path.relative(server.folder.uri.fsPath, uri.fsPath);
        return { server, entries: unverifiedFirst(entries), relPath };
    }

    private async chooseHere(title: string): Promise<{ server: FolderServer; entry: AnchorEntry } | undefined> {
        const here = await this.memoriesHere();
        if (!here) return undefined;
        const { entries, relPath } = here;
        if (!entries.length) {
            void vscode.window.showInformationMessage('engram: no memory is anchored on the symbol at the cursor.');
            return undefined;
        }
        const row =
            entries.length === 1
                ? fromAnchorEntry(entries[0], relPath)
                : await pickMemory(entries.map((e) => fromAnchorEntry(e, relPath)), title);
        const entry = row && entries.find((e) => e.claim_id === row.id);
        return entry ? { server: here.server, entry } : undefined;
    }

    private async showMemoriesCommand(lens?: { ids: string[]; uri: string }): Promise<void> {
        let here;
        try {
            here = await this.memoriesHere(lens);
        } catch (err) {
            return report(err, Method.anchors);
        }
        if (!here) return;
        if (!here.entries.length) {
            void vscode.window.showInformationMessage('engram: no memory is anchored on the symbol at the cursor.');
            return;
        }
        const rows: MemoryRow[] = here.entries.map((e) => fromAnchorEntry(e, here.relPath));
        const row = await pickMemory(rows, `engram: memories on ${here.entries[0].symbol || here.relPath}`);
        const entry = row && here.entries.find((e) => e.claim_id === row.id);
        if (!entry) return;
        const action = await vscode.window.showQuickPick(['Open Claim File', 'Re-verify', 'Retract…'], {
            title: entry.text.slice(0, 80),
        });
        if (action === 'Open Claim File') await openClaimFile(here.server, entry.claim_id);
        else if (action === 'Re-verify') await this.reverifyEntry(here.server, entry);
        else if (action === 'Retract…') await this.retractEntry(here.server, entry);
    }

    private reverifyEntry(server: FolderServer, entry: AnchorEntry): Promise<void> {
        return reverifyClaim(server, { id: entry.claim_id, text: entry.text, state: entry.anchor_state });
    }

    private retractEntry(server: FolderServer, entry: AnchorEntry): Promise<void> {
        return retractClaim(server, { id: entry.claim_id, text: entry.text, state: entry.anchor_state });
    }

    private async reverify(): Promise<void> {
        try {
            const chosen = await this.chooseHere('engram: which memory did you check?');
            if (chosen) await this.reverifyEntry(chosen.server, chosen.entry);
        } catch (err) {
            await report(err, Method.anchors);
        }
    }

    private async retract(): Promise<void> {
        try {
            const chosen = await this.chooseHere('engram: which memory to retract?');
            if (chosen) await this.retractEntry(chosen.server, chosen.entry);
        } catch (err) {
            await report(err, Method.anchors);
        }
    }

    private async delegate(): Promise<void> {
        const server = await this.pool.pick();
        if (!server) return;
        const task = await vscode.window.showInputBox({
            title: 'engram: Delegate',
            prompt: 'The task for the sub-agent: its memory packet goes to the clipboard',
            placeHolder: 'add refresh-token support to TokenValidator',
            ignoreFocusOut: true,
        });
        if (!task?.trim()) return;
        const doc = vscode.window.activeTextEditor?.document;
        const paths =
            doc && this.pool.forDocument(doc.uri) === server ? [path.relative(server.folder.uri.fsPath, doc.uri.fsPath)] : [];
        try {
            // The answer is {packet, envelope}: the packet alone is what a
            // sub-agent is handed (and what verifyPacket checks).
            const { packet } = await server.request<{ packet: { packet_id?: string; items?: unknown[] } }>(
                Method.delegate,
                delegateParams(task, server.agent, paths),
            );
            await vscode.env.clipboard.writeText(JSON.stringify(packet, null, 2));
            const n = packet.items?.length ?? 0;
            void vscode.window.showInformationMessage(
                `engram: memory packet ${packet.packet_id?.slice(0, 12) ?? ''} (${memories(n)}) copied to the clipboard.`,
            );
        } catch (err) {
            await report(err, Method.delegate, server);
        }
    }

    private async status(): Promise<void> {
        const server = await this.pool.pick();
        if (!server) return;
        try {
            const result = await server.request<StatusResult>(Method.status, statusParams());
            for (const line of statusReport(server.folder.name, result)) this.output.appendLine(line);
            const choice = await vscode.window.showInformationMessage(statusSummary(result), 'Show Report');
            if (choice === 'Show Report') this.output.show(true);
        } catch (err) {
            await report(err, Method.status, server);
        }
    }

    /** A command carried by a code action, run on the server of the folder it came from. */
    private async runServerCommand(folderUri: string, command: string, ...args: unknown[]): Promise<void> {
        const server = this.pool.get(folderUri);
        if (!server) return;
        try {
            await server.execute(command, args);
            server.touched();
        } catch (err) {
            await report(err, command, server);
        }
    }
}
