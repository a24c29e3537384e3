// A real VS Code for the tests: code-server on 127.0.0.1 with a fresh user
// data directory (workspace trust off), the platform .vsix installed into a
// fresh extensions directory, no engram on PATH, and Debian's Chromium
// driving the page through playwright-core. Helpers do what a person does:
// the command palette, quick open, go to line, typing.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const extensionDir = path.resolve(here, '../..');
export const repo = path.resolve(extensionDir, '../..');
const codeServer = path.join(here, 'node_modules/code-server/out/node/entry.js');

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

/** The sample workspace in git, with an instruction file, and one claim made with the CLI. */
export function makeWorkspace(dir, home) {
    fs.cpSync(path.join(repo, 'fixtures/sample-workspace'), dir, { recursive: true });
    fs.writeFileSync(
        path.join(dir, 'AGENTS.md'),
        '# Agents\n\nTokens are checked by `TokenValidator.validate` in `src/auth.py`.\n' +
            'Sessions are flushed by `src/flush.py`.\n',
    );
    const git = (...args) =>
        execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'sample');
    const engram = (...args) =>
        execFileSync(process.env.ENGRAM_BINARY, args, { cwd: dir, env: { ...process.env, HOME: home }, encoding: 'utf8' });
    engram(
        'remember',
        'validate returns ok=False for expired tokens instead of raising',
        '--label',
        'validate-silent',
        '--agent',
        'claude:test',
        '--anchor',
        'src/auth.py#TokenValidator.validate',
    );
    return engram;
}

export class VSCode {
    /** @type {import('playwright-core').Page} */
    page;

    static async start() {
        const v = new VSCode();
        await v.#start();
        return v;
    }

    async #start() {
        this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-real-'));
        this.home = path.join(this.tmp, 'home');
        this.workspace = path.join(this.tmp, 'ws');
        this.userData = path.join(this.tmp, 'user-data');
        this.extensions = path.join(this.tmp, 'extensions');
        for (const d of [this.home, this.workspace, path.join(this.userData, 'User'), this.extensions])
            fs.mkdirSync(d, { recursive: true });
        fs.writeFileSync(
            path.join(this.userData, 'User', 'settings.json'),
            JSON.stringify({
                'security.workspace.trust.enabled': false,
                'workbench.startupEditor': 'none',
                'workbench.tips.enabled': false,
                'chat.disableAIFeatures': true,
                'workbench.secondarySideBar.defaultVisibility': 'hidden',
                'extensions.autoUpdate': false,
                'extensions.autoCheckUpdates': false,
                'git.enabled': false,
                'editor.minimap.enabled': false,
                'window.commandCenter': false,
                'engram.trace.server': 'messages',
                // VS Code in a browser saves after a second by default; the tests edit unsaved buffers.
                'files.autoSave': 'off',
                // Low enough for the tests' 202 claims to be a "large store".
                'engram.memories.findingsLimit': 100,
            }),
        );
        this.engram = makeWorkspace(this.workspace, this.home);

        // A PATH without engram: the extension must use the binary it carries.
        const node24 = process.env.ENGRAM_CODE_SERVER_NODE;
        this.path = [path.dirname(node24), '/usr/bin', '/bin'].join(':');
        for (const dir of this.path.split(':'))
            if (fs.existsSync(path.join(dir, 'engram'))) throw new Error(`${dir}/engram exists: the test needs a PATH without engram`);
        this.env = {
            PATH: this.path,
            HOME: this.home,
            XDG_CONFIG_HOME: path.join(this.home, '.config'),
            XDG_DATA_HOME: path.join(this.home, '.local/share'),
            LANG: 'C.UTF-8',
        };
        const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
        const vsix = path.join(extensionDir, 'out', `${manifest.name}-linux-x64-${manifest.version}.vsix`);
        const common = ['--user-data-dir', this.userData, '--extensions-dir', this.extensions, '--config', path.join(this.tmp, 'config.yaml')];
        execFileSync(node24, [codeServer, ...common, '--install-extension', vsix], { env: this.env, stdio: 'pipe' });

        this.port = await freePort();
        this.log = '';
        this.server = spawn(
            node24,
            [
                codeServer,
                ...common,
                '--auth',
                'none',
                '--bind-addr',
                `127.0.0.1:${this.port}`,
                '--disable-telemetry',
                '--disable-update-check',
                '--disable-workspace-trust',
                '--disable-getting-started-override',
                this.workspace,
            ],
            { env: this.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
        );
        this.server.stdout.on('data', (d) => (this.log += d));
        this.server.stderr.on('data', (d) => (this.log += d));
        await this.#waitForListening();

        this.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
        this.page = await this.browser.newPage({ viewport: { width: 1400, height: 860 } });
        await this.page.goto(`http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.workspace)}`);
        await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    }

    async #waitForListening() {
        const until = Date.now() + 60_000;
        while (Date.now() < until) {
            const ok = await new Promise((resolve) => {
                const s = net.connect(this.port, '127.0.0.1', () => {
                    s.end();
                    resolve(true);
                });
                s.on('error', () => resolve(false));
            });
            if (ok) return;
            await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`code-server did not listen on ${this.port}:\n${this.log}`);
    }

    async stop() {
        await this.browser?.close().catch(() => undefined);
        if (this.server?.pid) {
            try {
                process.kill(-this.server.pid, 'SIGTERM'); // code-server and its extension host
            } catch {
                // already gone
            }
        }
        // engram serve exits when its client goes; give it a moment.
        await new Promise((r) => setTimeout(r, 500));
        fs.rmSync(this.tmp, { recursive: true, force: true });
    }

    /** The pids of the engram servers running from the installed extension. */
    engramServers() {
        const out = [];
        for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
            let cmd;
            try {
                cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
            } catch {
                continue;
            }
            if (cmd[0]?.startsWith(this.extensions) && cmd[1] === 'serve') out.push({ pid: Number(pid), binary: cmd[0] });
        }
        return out;
    }

    /** The engram output channel as the extension host wrote it to disk. */
    outputChannel() {
        const logs = path.join(this.userData, 'logs');
        const found = [];
        const walk = (d) => {
            for (const e of fs.readdirSync(d, { withFileTypes: true })) {
                const p = path.join(d, e.name);
                if (e.isDirectory()) walk(p);
                else if (/engram\.log$/.test(e.name) && p.includes('output_logging')) found.push(p);
            }
        };
        if (fs.existsSync(logs)) walk(logs);
        return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    }

    statusItem(text) {
        return this.page.locator('.statusbar-item', { hasText: text });
    }

    async waitFor(predicate, what, timeout = 30_000) {
        const until = Date.now() + timeout;
        for (;;) {
            const value = await predicate();
            if (value) return value;
            if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
            await new Promise((r) => setTimeout(r, 250));
        }
    }

    /** Runs a command by its title from the command palette. */
    async command(title) {
        await this.page.keyboard.press('Escape');
        await this.page.keyboard.press('F1');
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor();
        await input.fill(`>${title}`);
        const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
        await row.waitFor();
        await row.click();
    }

    /** Types into an open input box (Remember's text, Recall's query) and accepts it. */
    async answer(text) {
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor();
        await input.fill(text);
        await this.page.keyboard.press('Enter');
    }

    /** Opens a workspace file with quick open. */
    async open(relPath) {
        await this.page.keyboard.press('Escape');
        await this.page.keyboard.press('Control+P');
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor();
        await input.fill(relPath);
        // The list filters as it is typed into: Enter only once the focused
        // row is the file (before, it may still be the last file opened).
        await this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: path.basename(relPath) }).waitFor();
        await this.page.keyboard.press('Enter');
        await this.page.locator(`.tab.active[data-resource-name="${path.basename(relPath)}"]`).waitFor();
        await this.page.locator('.monaco-editor .view-lines').first().waitFor();
    }

    /** Puts the cursor at the end of a 1-based line of the active editor. */
    async gotoLineEnd(line) {
        await this.page.keyboard.press('Control+G');
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor();
        await input.fill(`:${line}`);
        await this.page.keyboard.press('Enter');
        await this.page.keyboard.press('End');
    }

    /**
     * Gives a view of the side bar the room to show all its rows (they are
     * virtualized: rows scrolled out are not in the page): the other panes
     * collapsed, this one open, the side bar widened.
     */
    async focusView(title) {
        const headers = this.page.locator('.sidebar .pane-header');
        await headers.filter({ hasText: title }).first().waitFor();
        for (const h of await headers.all()) {
            const mine = (await h.innerText()).trim().startsWith(title);
            const open = (await h.getAttribute('aria-expanded')) === 'true';
            if (mine !== open) await h.click();
        }
        // The sash on the side bar's right edge, dragged to the right.
        const bar = await this.page.locator('.part.sidebar').boundingBox();
        for (const sash of await this.page.locator('.monaco-sash.vertical').all()) {
            const box = await sash.boundingBox();
            if (!bar || !box || Math.abs(box.x + box.width / 2 - (bar.x + bar.width)) > 6) continue;
            const y = bar.y + bar.height / 2;
            await this.page.mouse.move(box.x + box.width / 2, y);
            await this.page.mouse.down();
            await this.page.mouse.move(bar.x + 600, y, { steps: 8 });
            await this.page.mouse.up();
            break;
        }
        return this.page.locator('.sidebar .pane', { has: this.page.locator('.pane-header', { hasText: title }) });
    }

    async type(text) {
        await this.page.keyboard.type(text, { delay: 10 });
    }

    /** The Problems panel's rows, as text. */
    async problems() {
        return this.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    }

    async showProblems() {
        const panel = this.page.locator('.markers-panel');
        if (!(await panel.isVisible())) await this.page.keyboard.press('Control+Shift+M');
        await panel.waitFor();
    }

    async screenshot(name) {
        const dir = process.env.ENGRAM_SCREENSHOTS;
        if (!dir) return;
        fs.mkdirSync(dir, { recursive: true });
        await this.page.screenshot({ path: path.join(dir, name) });
    }
}
