// Entry points: activate() starts an engram server per workspace folder and
// wires the commands and the status-bar item; deactivate() stops the servers.
import * as vscode from 'vscode';
import { Commands } from './commands';
import { MemoriesView } from './memoriesView';
import { ServerPool } from './pool';
import { StatusBar } from './statusBar';

let pool: ServerPool | undefined;

export function activate(context: vscode.ExtensionContext): void {
    // One channel for every folder's server: its log and the protocol trace
    // (engram.trace.server).
    const output = vscode.window.createOutputChannel('engram');
    pool = new ServerPool(output, context.asAbsolutePath('bin/engram'));
    context.subscriptions.push(output, pool, new StatusBar(pool));
    new Commands(pool, output).register(context);
    const memoriesView = new MemoriesView(pool, context.workspaceState);
    memoriesView.register(context);
    context.subscriptions.push(memoriesView);
    context.subscriptions.push(
        vscode.workspace.onDidChangeConfiguration((e) => {
            // The binary and the author name are fixed when a server starts.
            if (e.affectsConfiguration('engram.path') || e.affectsConfiguration('engram.agent'))
                void pool?.restartAll();
        }),
    );
    pool.startAll();
}

export function deactivate(): Promise<void> | undefined {
    return pool?.stopAll();
}
