// The packaged extension is complete: unpacked from the .vsix alone, it
// loads, and activating it registers every command its manifest declares.
// VS Code itself is replaced by a recording stand-in.
import * as assert from 'node:assert/strict';
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
const vsix = path.join(packageDir, 'out', `${manifest.name}-${manifest.version}.vsix`);
const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-vsix-'));
let files: string[] = [];

function unzip(file: string, into: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
        yauzl.open(file, { lazyEntries: true }, (err, zip) => {
            if (err) return reject(err);
            const names: string[] = [];
            zip.on('error', reject);
            zip.on('end', () => resolve(names));
            zip.on('entry', (entry) => {
                names.push(entry.fileName);
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
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run the package step first`);
    files = await unzip(vsix, unpacked);
});
after(() => fs.rmSync(unpacked, { recursive: true, force: true }));

test('the .vsix holds the compiled extension, its runtime dependencies and its license, not its sources', () => {
    assert.ok(files.includes(`extension/${path.posix.normalize(manifest.main)}`), manifest.main);
    assert.ok(files.includes('extension/LICENSE.txt'));
    assert.ok(files.some((f) => f.startsWith('extension/node_modules/vscode-languageclient/')));
    assert.deepEqual(
        files.filter((f) => /^extension\/(src|test)\//.test(f) || /^extension\/out\/test\//.test(f) || f.endsWith('.ts')),
        [],
    );
    assert.deepEqual(files.filter((f) => /node_modules\/(typescript|eslint|@vscode\/vsce)\//.test(f)), []);
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
        const main = path.join(unpacked, 'extension', manifest.main);
        const ext = Module.createRequire(__filename)(main) as { activate: (c: unknown) => void; deactivate: () => unknown };
        const context = { subscriptions: [] as { dispose(): unknown }[] };
        ext.activate(context);
        const packaged = JSON.parse(
            fs.readFileSync(path.join(unpacked, 'extension', 'package.json'), 'utf8'),
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
