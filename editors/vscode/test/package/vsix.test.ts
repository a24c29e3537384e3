// The packaged extensions are complete: unpacked from the .vsix alone, each
// loads, and activating it registers every command its manifest declares.
// The platform package also carries a runnable engram; the universal one
// carries none. VS Code itself is replaced by a recording stand-in (the
// real-VS-Code tests, scripts/real.sh, install the platform package into a
// real one).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import * as yauzl from 'yauzl';
import Module = require('node:module');

const packageDir = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    main: string;
    contributes: { commands: { command: string }[] };
};
const universal = path.join(packageDir, 'out', `${manifest.name}-${manifest.version}.vsix`);
const linux = path.join(packageDir, 'out', `${manifest.name}-linux-x64-${manifest.version}.vsix`);
const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-vsix-'));
const unpackedLinux = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-vsix-linux-'));
let files: string[] = [];
let linuxFiles: string[] = [];
/** Unix modes the zip records, by entry name (what VS Code restores on install). */
const modes = new Map<string, number>();

function unzip(file: string, into: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
        yauzl.open(file, { lazyEntries: true }, (err, zip) => {
            if (err) return reject(err);
            const names: string[] = [];
            zip.on('error', reject);
            zip.on('end', () => resolve(names));
            zip.on('entry', (entry) => {
                names.push(entry.fileName);
                modes.set(`${file}:${entry.fileName}`, (entry.externalFileAttributes >>> 16) & 0o7777);
                const target = path.join(into, entry.fileName);
                if (entry.fileName.endsWith('/')) return zip.readEntry();
                zip.openReadStream(entry, (e, stream) => {
                    if (e) return reject(e);
                    fs.mkdirSync(path.dirname(target), { recursive: true });
                    stream.pipe(fs.createWriteStream(target)).on('finish', () => zip.readEntry());
                });
            });
            zip.readEntry();
        });
    });
}

before(async () => {
    for (const f of [universal, linux]) assert.ok(fs.existsSync(f), `${f} is missing: run the package step first`);
    files = await unzip(universal, unpacked);
    linuxFiles = await unzip(linux, unpackedLinux);
});
after(() => {
    fs.rmSync(unpacked, { recursive: true, force: true });
    fs.rmSync(unpackedLinux, { recursive: true, force: true });
});

test('each .vsix holds the compiled extension, its runtime dependencies and its license, not its sources', () => {
    for (const list of [files, linuxFiles]) {
        assert.ok(list.includes(`extension/${path.posix.normalize(manifest.main)}`), manifest.main);
        assert.ok(list.includes('extension/LICENSE.txt'));
        assert.ok(list.some((f) => f.startsWith('extension/node_modules/vscode-languageclient/')));
        assert.deepEqual(
            list.filter((f) => /^extension\/(src|test)\//.test(f) || /^extension\/out\/test\//.test(f) || f.endsWith('.ts')),
            [],
        );
        assert.deepEqual(list.filter((f) => /node_modules\/(typescript|eslint|@vscode\/vsce)\//.test(f)), []);
    }
    // Only the platform package carries a binary.
    assert.deepEqual(files.filter((f) => f.startsWith('extension/bin/')), []);
});

test('the linux-x64 package carries a runnable engram, marked executable, and says its platform', () => {
    assert.deepEqual(
        linuxFiles.filter((f) => f.startsWith('extension/bin/')),
        ['extension/bin/engram'],
    );
    assert.equal(modes.get(`${linux}:extension/bin/engram`), 0o755);
    const vsixManifest = fs.readFileSync(path.join(unpackedLinux, 'extension.vsixmanifest'), 'utf8');
    assert.match(vsixManifest, /TargetPlatform="linux-x64"/);
    assert.doesNotMatch(fs.readFileSync(path.join(unpacked, 'extension.vsixmanifest'), 'utf8'), /TargetPlatform=/);
    const bin = path.join(unpackedLinux, 'extension', 'bin', 'engram');
    fs.chmodSync(bin, 0o755);
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' });
    const built = execFileSync(process.env.ENGRAM_BINARY ?? '', ['--version'], { encoding: 'utf8' });
    assert.match(version, /^engram \d/);
    assert.equal(version, built);
});

/** A VS Code stand-in: every API answers with itself, except what the test records or fixes. */
function vscodeStub(registered: string[]): unknown {
    const fixed: Record<string, unknown> = {
        'commands.registerCommand': (id: string) => {
            registered.push(id);
            return { dispose: () => undefined };
        },
        'workspace.workspaceFolders': [],
        'window.activeTextEditor': undefined,
        'workspace.getConfiguration': () => ({ get: (_k: string, d: unknown) => d }),
    };
    const make = (at: string): unknown =>
        new Proxy(function () {}, {
            get: (_t, key) => {
                if (typeof key !== 'string') return undefined;
                const p = at ? `${at}.${key}` : key;
                if (p in fixed) return fixed[p];
                return key === 'then' ? undefined : make(p);
            },
            set: () => true,
            apply: () => make(at),
            construct: () => make(at) as object,
        });
    return make('');
}

test('activating the packaged extension registers every declared command', async () => {
    const registered: string[] = [];
    const stub = vscodeStub(registered);
    const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
    const load = loader._load;
    loader._load = function (request: string, ...rest: unknown[]) {
        return request === 'vscode' ? stub : load.call(this, request, ...rest);
    };
    try {
        const main = path.join(unpackedLinux, 'extension', manifest.main);
        const ext = Module.createRequire(__filename)(main) as { activate: (c: unknown) => void; deactivate: () => unknown };
        const context = {
            subscriptions: [] as { dispose(): unknown }[],
            asAbsolutePath: (p: string) => path.join(unpackedLinux, 'extension', p),
            workspaceState: { get: <T>(_key: string, fallback: T) => fallback, update: () => Promise.resolve() },
        };
        ext.activate(context);
        const packaged = JSON.parse(
            fs.readFileSync(path.join(unpackedLinux, 'extension', 'package.json'), 'utf8'),
        ) as typeof manifest;
        const declared = packaged.contributes.commands.map((c) => c.command).sort();
        assert.ok(declared.length >= 8);
        assert.deepEqual([...new Set(registered)].sort(), declared);
        await ext.deactivate();
        for (const d of context.subscriptions) d.dispose();
    } finally {
        loader._load = load;
    }
});
