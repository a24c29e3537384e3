// The servers of all workspace folders, and which one a command talks to.
import * as vscode from 'vscode';
import { FolderServer } from './server';

export class ServerPool implements vscode.Disposable {
    private readonly servers = new Map<string, FolderServer>();
    private readonly changed = new vscode.EventEmitter<void>();
    private readonly subscriptions: vscode.Disposable[] = [];
    readonly onDidChange = this.changed.event;

    /** `bundled`: the platform package's binary (bin/engram in the extension). */
    constructor(
        private readonly output: vscode.OutputChannel,
        private readonly bundled: string,
    ) {}

    startAll(): void {
        for (const folder of vscode.workspace.workspaceFolders ?? []) this.add(folder);
        this.subscriptions.push(
            vscode.workspace.onDidChangeWorkspaceFolders((e) => {
                for (const f of e.removed) this.remove(f);
                for (const f of e.added) this.add(f);
            }),
        );
    }

    private add(folder: vscode.WorkspaceFolder): void {
        // Only local folders: engram reads the files itself.
        if (folder.uri.scheme !== 'file' || this.servers.has(folder.uri.toString())) return;
        const server = new FolderServer(folder, this.output, this.bundled);
        this.servers.set(folder.uri.toString(), server);
        this.subscriptions.push(server.onDidChange(() => this.changed.fire()));
        void server.start();
    }

    private remove(folder: vscode.WorkspaceFolder): void {
        const key = folder.uri.toString();
        this.servers.get(key)?.dispose();
        this.servers.delete(key);
        this.changed.fire();
    }

    /** Every folder's server, in the order the folders were added. */
    all(): FolderServer[] {
        return [...this.servers.values()];
    }

    get(folderUri: string): FolderServer | undefined {
        return this.servers.get(folderUri);
    }

    forDocument(uri: vscode.Uri): FolderServer | undefined {
        const folder = vscode.workspace.getWorkspaceFolder(uri);
        return folder ? this.servers.get(folder.uri.toString()) : undefined;
    }

    /** The server of the active editor's folder, else the only one. */
    forActive(): FolderServer | undefined {
        const editor = vscode.window.activeTextEditor;
        const byEditor = editor ? this.forDocument(editor.document.uri) : undefined;
        if (byEditor) return byEditor;
        return this.servers.size === 1 ? [...this.servers.values()][0] : undefined;
    }

    /** forActive(), or ask which folder when several are open and no editor decides. */
    async pick(): Promise<FolderServer | undefined> {
        const active = this.forActive();
        if (active) return active;
        if (this.servers.size === 0) {
            void vscode.window.showWarningMessage('engram: open a folder to use its memory.');
            return undefined;
        }
        const folder = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which folder’s memory?' });
        return folder ? this.servers.get(folder.uri.toString()) : undefined;
    }

    async restartAll(): Promise<void> {
        await Promise.all([...this.servers.values()].map((s) => s.restart()));
    }

    async stopAll(): Promise<void> {
        await Promise.all([...this.servers.values()].map((s) => s.stop()));
    }

    dispose(): void {
        for (const s of this.servers.values()) s.dispose();
        this.servers.clear();
        for (const d of this.subscriptions) d.dispose();
        this.changed.dispose();
    }
}
