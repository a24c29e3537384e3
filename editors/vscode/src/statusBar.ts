// The "engram: 42 · 3 drifted" item for the active editor's folder.
import * as vscode from 'vscode';
import { statusBarDown, statusBarView, StatusBarView } from './core/status';
import { Method, statusParams } from './core/requests';
import { StatusResult } from './core/wire';
import { ServerPool } from './pool';

export class StatusBar implements vscode.Disposable {
    private readonly item = vscode.window.createStatusBarItem('engram.status', vscode.StatusBarAlignment.Left, 0);
    private readonly subscriptions: vscode.Disposable[] = [];
    private timer: NodeJS.Timeout | undefined;

    constructor(private readonly pool: ServerPool) {
        this.item.name = 'engram';
        this.subscriptions.push(
            pool.onDidChange(() => this.refresh()),
            vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
            // Diagnostics follow edits and writes; so do the anchor-health counts.
            vscode.languages.onDidChangeDiagnostics(() => this.refresh()),
        );
        this.refresh();
    }

    /** Coalesces bursts (typing republishes diagnostics on every change). */
    refresh(): void {
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.update(), 300);
    }

    private async update(): Promise<void> {
        const server = this.pool.forActive();
        if (!server) {
            this.item.hide();
            return;
        }
        if (server.state !== 'running') {
            this.show(statusBarDown(server.state), server.state === 'starting' ? 'engram.showOutput' : 'engram.restart');
            return;
        }
        try {
            const status = await server.request<StatusResult>(Method.status, statusParams());
            this.show(statusBarView(status), 'engram.status');
        } catch {
            // The server went away between the check and the answer; its
            // state change brings another refresh.
        }
    }

    private show(view: StatusBarView, command: string): void {
        this.item.text = view.text;
        this.item.tooltip = view.tooltip;
        this.item.command = command;
        this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
        this.item.show();
    }

    dispose(): void {
        if (this.timer) clearTimeout(this.timer);
        for (const d of this.subscriptions) d.dispose();
        this.item.dispose();
    }
}
