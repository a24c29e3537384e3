// One `engram serve` per workspace folder: spawning it, watching it, and the
// messages a person sees when it cannot start or stops.
import * as os from 'os';
import * as vscode from 'vscode';
import {
    CloseAction,
    DynamicFeature,
    ErrorAction,
    ExecuteCommandRequest,
    LanguageClient,
    LanguageClientOptions,
    RevealOutputChannelOn,
    ServerOptions,
    State,
    StaticFeature,
} from 'vscode-languageclient/node';
import { findBinary, restoreExecutable } from './core/binary';
import { advertisedMethods, unsupported, unsupportedError } from './core/capabilities';
import { CrashBudget } from './core/crashes';
import { agentName } from './core/requests';
import { routeCommand } from './core/serverCommands';

export type ServerState = 'starting' | 'running' | 'missing' | 'crashed' | 'stopped';

/**
 * A LanguageClient without the built-in executeCommand feature: that feature
 * registers the server's command names as global VS Code commands, which a
 * second folder's client could not register again. The extension routes
 * server commands itself (core/serverCommands.ts).
 */
class EngramLanguageClient extends LanguageClient {
    override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
        if (DynamicFeature.is(feature) && feature.registrationType.method === ExecuteCommandRequest.method) return;
        super.registerFeature(feature);
    }
}

export class FolderServer implements vscode.Disposable {
    private client: LanguageClient | undefined;
    /** The engram/* methods the running server advertised (undefined: it lists none). */
    private methods: Set<string> | undefined;
    private readonly crashes = new CrashBudget();
    private readonly changed = new vscode.EventEmitter<void>();
    private _state: ServerState = 'stopped';
    private _agent = 'human:unknown';
    /** Fires when the state changes or memory may have changed. */
    readonly onDidChange = this.changed.event;

    /** `bundled`: where the platform package's own binary would be. */
    constructor(
        readonly folder: vscode.WorkspaceFolder,
        private readonly output: vscode.OutputChannel,
        private readonly bundled: string,
    ) {}

    /** Who this server's writes are recorded as (engram.agent, read at start). */
    get agent(): string {
        return this._agent;
    }

    get state(): ServerState {
        return this._state;
    }

    private setState(s: ServerState): void {
        this._state = s;
        this.changed.fire();
    }

    /** Memory changed through this server (a command ran): views refresh. */
    touched(): void {
        this.changed.fire();
    }

    async start(): Promise<void> {
        if (this.client) return;
        const config = vscode.workspace.getConfiguration('engram', this.folder);
        this._agent = agentName(config.get<string>('agent', ''), os.userInfo().username);
        restoreExecutable(this.bundled);
        const lookup = findBinary(config.get<string>('path', ''), this.folder.uri.fsPath, process.env, this.bundled);
        if (!lookup.ok) {
            this.output.appendLine(`[${this.folder.name}] ${lookup.message}`);
            this.setState('missing');
            void this.explainMissing(lookup.message);
            return;
        }
        this.output.appendLine(`[${this.folder.name}] starting ${lookup.path} serve (from ${lookup.source})`);
        const serverOptions: ServerOptions = {
            command: lookup.path,
            args: ['serve'],
            options: { cwd: this.folder.uri.fsPath },
        };
        const folderUri = this.folder.uri.toString();
        const clientOptions: LanguageClientOptions = {
            // Every file of this folder: engram decides which languages it
            // parses, and claim files get their own diagnostics.
            documentSelector: [{ scheme: 'file', pattern: `${this.folder.uri.fsPath}/**/*` }],
            workspaceFolder: this.folder,
            initializationOptions: { agent: this.agent },
            outputChannel: this.output,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            diagnosticCollectionName: 'engram',
            synchronize: {
                fileEvents: vscode.workspace.createFileSystemWatcher(
                    new vscode.RelativePattern(this.folder, '.engram/claims/*.md'),
                ),
            },
            errorHandler: {
                error: (_error, _message, count) => ({
                    action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
                    handled: true,
                }),
                closed: () => this.onClosed(),
            },
            middleware: {
                provideCodeActions: async (document, range, context, token, next) => {
                    const actions = await next(document, range, context, token);
                    for (const a of actions ?? []) {
                        if (a instanceof vscode.CodeAction) {
                            if (a.command) a.command = routeCommand(a.command, folderUri, document.uri.toString());
                        } else {
                            Object.assign(a, routeCommand(a, folderUri, document.uri.toString()));
                        }
                    }
                    return actions;
                },
                provideCodeLenses: async (document, token, next) => {
                    const lenses = await next(document, token);
                    for (const l of lenses ?? [])
                        if (l.command) l.command = routeCommand(l.command, folderUri, document.uri.toString());
                    return lenses;
                },
            },
        };
        const client = new EngramLanguageClient('engram', `engram (${this.folder.name})`, serverOptions, clientOptions);
        this.client = client;
        client.onDidChangeState((e) => {
            if (e.newState === State.Running) this.setState('running');
            else if (e.newState === State.Starting) this.setState('starting');
        });
        this.setState('starting');
        try {
            await client.start();
            this.methods = advertisedMethods(client.initializeResult);
            const info = client.initializeResult?.serverInfo;
            this.output.appendLine(
                `[${this.folder.name}] ${info?.name ?? 'engram'} ${info?.version ?? '(version unknown)'} is running (${lookup.source}: ${lookup.path})`,
            );
        } catch (err) {
            this.output.appendLine(`[${this.folder.name}] engram serve did not start: ${String(err)}`);
            this.client = undefined;
            this.setState('crashed');
            void this.offerRestart(`engram could not start for ${this.folder.name}: ${String(err)}`);
        }
    }

    private onClosed(): { action: CloseAction; handled: boolean } {
        if (this.crashes.crashed(Date.now())) {
            this.output.appendLine(`[${this.folder.name}] engram serve stopped unexpectedly; restarting it`);
            return { action: CloseAction.Restart, handled: true };
        }
        this.output.appendLine(
            `[${this.folder.name}] engram serve stopped ${this.crashes.recent} times in a few minutes; not restarting`,
        );
        // The client object stays until restart() disposes it.
        this.setState('crashed');
        void this.offerRestart(
            `engram stopped unexpectedly for ${this.folder.name} (${this.crashes.recent} times in a few minutes).`,
        );
        return { action: CloseAction.DoNotRestart, handled: true };
    }

    private async explainMissing(message: string): Promise<void> {
        const choice = await vscode.window.showErrorMessage(
            `engram: ${message} Set engram.path to the binary (build/engram in an engram checkout) and retry.`,
            'Open Settings',
            'Retry',
        );
        if (choice === 'Open Settings')
            await vscode.commands.executeCommand('workbench.action.openSettings', 'engram.path');
        else if (choice === 'Retry') await this.restart();
    }

    private async offerRestart(message: string): Promise<void> {
        const choice = await vscode.window.showErrorMessage(message, 'Restart', 'Show Output');
        if (choice === 'Restart') await this.restart();
        else if (choice === 'Show Output') this.output.show(true);
    }

    /** Stops the server if it runs, then starts it with a fresh crash budget. */
    async restart(): Promise<void> {
        this.crashes.reset();
        await this.stop();
        await this.start();
    }

    async stop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        if (client) {
            try {
                if (client.state !== State.Stopped) await client.stop(2000);
            } catch (err) {
                this.output.appendLine(`[${this.folder.name}] stopping engram failed: ${String(err)}`);
            }
            client.dispose().catch(() => undefined);
        }
        this.setState('stopped');
    }

    /** A request to this folder's server; refuses clearly when it is not running. */
    async request<R>(method: string, params: object): Promise<R> {
        // A command run while the server starts waits for it rather than failing.
        if (this.client && this._state === 'starting') await this.client.start().catch(() => undefined);
        if (!this.client || this._state !== 'running')
            throw new NotRunning(`engram is not running for ${this.folder.name} (${this._state}).`);
        // An older engram than the extension is told apart before anything is sent.
        if (unsupported(this.methods, method)) throw unsupportedError(method);
        return this.client.sendRequest<R>(method, params);
    }

    /** A workspace/executeCommand for the commands engram's code actions carry. */
    async execute(command: string, args: unknown[]): Promise<unknown> {
        return this.request('workspace/executeCommand', { command, arguments: args });
    }

    dispose(): void {
        void this.stop();
        this.changed.dispose();
    }
}

export class NotRunning extends Error {}
