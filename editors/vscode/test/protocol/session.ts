// A real `engram serve` behind vscode-jsonrpc, the library under
// vscode-languageclient: the same framing and message handling the extension
// uses, without VS Code.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
    createMessageConnection,
    MessageConnection,
    StreamMessageReader,
    StreamMessageWriter,
} from 'vscode-jsonrpc/node';

export interface Diagnostic {
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    severity: number;
    code: string;
    source: string;
    message: string;
    data?: { claim_id?: string };
}

interface Published {
    uri: string;
    version?: number;
    diagnostics: Diagnostic[];
}

export function binary(): string {
    const b = process.env.ENGRAM_BINARY;
    if (!b) throw new Error('set ENGRAM_BINARY to the engram binary (CTest does)');
    return b;
}

/** A copy of the sample workspace in a temporary directory, with its own ENGRAM_HOME. */
export function workspace(): { root: string; home: string; cleanup: () => void } {
    const fixtures = process.env.ENGRAM_FIXTURES ?? path.resolve(__dirname, '../../../../../fixtures');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-vscode-'));
    const root = path.join(tmp, 'ws');
    fs.cpSync(path.join(fixtures, 'sample-workspace'), root, { recursive: true });
    fs.mkdirSync(path.join(root, '.git'));
    const home = path.join(tmp, 'home');
    fs.mkdirSync(home);
    return { root, home, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
}

export function fileUri(p: string): string {
    return pathToFileURL(p).toString();
}

export class Session {
    readonly connection: MessageConnection;
    readonly child: ChildProcess;
    readonly shown: string[] = [];
    private readonly published: Published[] = [];
    private waiters: (() => void)[] = [];
    readonly exited: Promise<number | null>;

    constructor(root: string, home: string) {
        this.child = spawn(binary(), ['serve'], {
            cwd: root,
            env: { ...process.env, ENGRAM_HOME: home },
            stdio: ['pipe', 'pipe', 'pipe'],
        });
        this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
        this.connection = createMessageConnection(
            new StreamMessageReader(this.child.stdout!),
            new StreamMessageWriter(this.child.stdin!),
        );
        this.connection.onNotification('textDocument/publishDiagnostics', (p: Published) => {
            this.published.push(p);
            for (const w of this.waiters.splice(0)) w();
        });
        // Requests the server sends to the client, answered as VS Code does.
        this.connection.onRequest('window/workDoneProgress/create', () => null);
        this.connection.onRequest('window/showDocument', (p: { uri: string }) => {
            this.shown.push(p.uri);
            return { success: true };
        });
        this.connection.listen();
    }

    /** The next diagnostics published for `uri` (at `version`, when given) not yet taken. */
    async diagnostics(uri: string, version?: number, timeoutMs = 10000): Promise<Diagnostic[]> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const hit = this.published.find((p) => p.uri === uri && (version === undefined || p.version === version));
            if (hit) {
                this.published.splice(this.published.indexOf(hit), 1);
                return hit.diagnostics;
            }
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no diagnostics for ${uri} (version ${version ?? 'any'})`);
            await new Promise<void>((resolve) => {
                const t = setTimeout(resolve, left);
                this.waiters.push(() => {
                    clearTimeout(t);
                    resolve();
                });
            });
        }
    }

    /** Forgets what was published so far. */
    drain(): void {
        this.published.length = 0;
    }

    async close(): Promise<number | null> {
        await this.connection.sendRequest('shutdown');
        await this.connection.sendNotification('exit');
        const code = await this.exited;
        this.connection.dispose();
        return code;
    }
}
