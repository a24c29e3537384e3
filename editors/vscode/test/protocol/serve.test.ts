// The extension's requests against the real `engram serve`: the parameters
// come from the same builders the commands use, the answers go through the
// same renderers the quick picks and the status bar use.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { currentLocation, memoriesAt } from '../../src/core/anchors';
import { advertisedMethods, unsupported } from '../../src/core/capabilities';
import { errorMessage } from '../../src/core/errors';
import {
    anchorsParams,
    delegateParams,
    getParams,
    Method,
    recallParams,
    rememberParams,
    retractParams,
    statusParams,
} from '../../src/core/requests';
import { fromRecallRow, renderRow } from '../../src/core/rows';
import { routeCommand, runOnServer } from '../../src/core/serverCommands';
import { statusBarView } from '../../src/core/status';
import {
    AnchorsResult,
    GetResult,
    LspPosition,
    RecallResult,
    RememberResult,
    StatusResult,
} from '../../src/core/wire';
import { fileUri, Session, workspace } from './session';

const agent = 'human:tester';
const ws = workspace();
const authPath = path.join(ws.root, 'src', 'auth.py');
const authUri = fileUri(authPath);
const authText = fs.readFileSync(authPath, 'utf8');
let s: Session;
let claimId = '';
let initResult: { capabilities: Record<string, unknown> & { experimental?: { engram?: { methods?: string[] } } } };

function position(snippet: string, offset = 0): LspPosition {
    const at = authText.indexOf(snippet);
    assert.ok(at >= 0, `fixture lacks ${snippet}`);
    const before = authText.slice(0, at + offset);
    const line = before.split('\n').length - 1;
    return { line, character: at + offset - (before.lastIndexOf('\n') + 1) };
}

before(async () => {
    s = new Session(ws.root, ws.home);
    // What vscode-languageclient sends for a workspace folder.
    initResult = await s.connection.sendRequest('initialize', {
        processId: process.pid,
        clientInfo: { name: 'Visual Studio Code', version: '1.82.0' },
        rootUri: fileUri(ws.root),
        workspaceFolders: [{ uri: fileUri(ws.root), name: 'ws' }],
        capabilities: { window: { workDoneProgress: true, showDocument: { support: true } } },
        initializationOptions: { agent },
    });
    await s.connection.sendNotification('initialized', {});
    await s.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri: authUri, languageId: 'python', version: 1, text: authText },
    });
    assert.deepEqual(await s.diagnostics(authUri, 1), []);
});

after(() => ws.cleanup());

test('initialize advertises what the extension relies on', () => {
    const caps = initResult.capabilities;
    assert.equal(caps.hoverProvider, true);
    assert.deepEqual(caps.codeLensProvider, { resolveProvider: false });
    const commands = (caps.executeCommandProvider as { commands: string[] }).commands;
    for (const c of ['engram.reverify', 'engram.retract', 'engram.openClaim']) assert.ok(commands.includes(c), c);
    // Every method the extension sends is one the server advertises: the
    // extension refuses the others before sending them (core/capabilities).
    const methods = advertisedMethods(initResult);
    assert.ok(methods, 'the server lists its methods');
    for (const m of Object.values(Method)) assert.equal(unsupported(methods, m), false, m);
    assert.equal(unsupported(methods, 'engram/noSuchMethod'), true);
});

test('Remember at the cursor anchors the enclosing method', async () => {
    const params = rememberParams({
        text: 'validate returns ok=False for expired tokens instead of raising',
        agent,
        uri: authUri,
        cursor: position('if token.expires_at'),
    });
    const r = await s.connection.sendRequest<RememberResult>(Method.remember, params);
    claimId = r.claim.id;
    assert.match(claimId, /^c-/);
    assert.equal(r.claim.source_agent, agent);
    assert.equal(r.claim.anchors[0].symbol, 'TokenValidator.validate');
    // Diagnostics are republished after a write: the fresh claim is intact.
    assert.deepEqual(await s.diagnostics(authUri), []);
});

test('Remember on a selection anchors its lines', async () => {
    const params = rememberParams({
        text: 'the clock is injectable for tests',
        agent,
        uri: authUri,
        cursor: position('self.clock = clock'),
        selection: { start: position('def __init__'), end: { line: position('self.clock = clock').line + 1, character: 0 } },
    });
    const r = await s.connection.sendRequest<RememberResult>(Method.remember, params);
    const init = position('def __init__').line + 1;
    assert.deepEqual(r.claim.anchors[0].range, { start_line: init, end_line: init + 1 });
    assert.equal(r.claim.anchors[0].kind, 'range');
});

test('Recall lists the claim with its tier, state, age and author', async () => {
    const r = await s.connection.sendRequest<RecallResult>(
        Method.recall,
        recallParams({ query: 'expired tokens', focusUri: authUri }),
    );
    const row = r.rows.find((x) => x.id === claimId);
    assert.ok(row, 'the claim is recalled');
    const shown = renderRow(fromRecallRow(row));
    assert.equal(shown.label, '$(pass) validate returns ok=False for expired tokens instead of raising');
    assert.match(shown.description, /^project · intact · .+ · human:tester$/);
    assert.match(shown.detail, /src\/auth\.py#TokenValidator\.validate/);
});

test('an unsaved edit drifts the claim: diagnostic, hover, code lens, quick fixes', async () => {
    s.drain();
    await s.connection.sendNotification('textDocument/didChange', {
        textDocument: { uri: authUri, version: 2 },
        contentChanges: [{ range: { start: position('"expired"'), end: position('"expired"', 9) }, text: '"stale"' }],
    });
    const diags = await s.diagnostics(authUri, 2);
    assert.equal(diags.length, 1);
    assert.equal(diags[0].code, 'engram.drifted');
    assert.equal(diags[0].source, 'engram');
    assert.equal(diags[0].data?.claim_id, claimId);
    assert.deepEqual(diags[0].range.start, position('def validate'));

    const hover = await s.connection.sendRequest<{ contents: { value: string } }>('textDocument/hover', {
        textDocument: { uri: authUri },
        position: position('if token.expires_at'),
    });
    assert.match(hover.contents.value, /validate returns ok=False/);
    assert.match(hover.contents.value, /drifted/);
    assert.match(hover.contents.value, /human:tester/);

    const lenses = await s.connection.sendRequest<{ command: { title: string; command: string; arguments: unknown[] } }[]>(
        'textDocument/codeLens',
        { textDocument: { uri: authUri } },
    );
    const lens = lenses.find((l) => l.command.title.includes('drifted'));
    assert.ok(lens, JSON.stringify(lenses));
    assert.equal(lens.command.title, '1 memory · 1 drifted');
    // The extension's Show Memories command receives the ids and the document.
    assert.deepEqual(routeCommand(lens.command, fileUri(ws.root), authUri).arguments, [
        { ids: [claimId], uri: authUri },
    ]);

    const actions = await s.connection.sendRequest<{ title: string; command: { command: string; arguments: unknown[] } }[]>(
        'textDocument/codeAction',
        { textDocument: { uri: authUri }, range: diags[0].range, context: { diagnostics: diags } },
    );
    assert.deepEqual(
        actions.map((a) => a.command.command),
        ['engram.reverify', 'engram.retract', 'engram.openClaim'],
    );
    // "Open the claim file" goes back to this folder's server, which asks the
    // client to show the claim file.
    const open = routeCommand({ title: 'open', ...actions[2].command }, fileUri(ws.root), authUri);
    assert.equal(open.command, runOnServer);
    const [, command, ...args] = open.arguments as [string, string, ...unknown[]];
    await s.connection.sendRequest('workspace/executeCommand', { command, arguments: args });
    assert.equal(s.shown.length, 1);
    assert.match(s.shown[0], new RegExp(`/\\.engram/claims/${claimId}\\.md$`));
});

test('Show Memories for Symbol finds the claim at the cursor, at the symbol’s current range', async () => {
    const found = await s.connection.sendRequest<AnchorsResult>(Method.anchors, anchorsParams(authUri));
    const here = memoriesAt(found.anchors, position('if token.expires_at'));
    assert.deepEqual(here.map((e) => [e.claim_id, e.anchor_state]), [[claimId, 'drifted']]);
    const at = currentLocation(found.anchors, claimId, 'src/auth.py');
    assert.equal(at?.path, 'src/auth.py');
    assert.deepEqual(at?.range?.start, position('def validate'));
    assert.deepEqual(memoriesAt(found.anchors, position('import time')), []);
});

test('the status bar counts the live memories and the drifted one', async () => {
    const status = await s.connection.sendRequest<StatusResult>(Method.status, statusParams());
    assert.equal(status.envelope.binding.root, fs.realpathSync(ws.root));
    assert.equal(statusBarView(status).text, 'engram: 2 · 1 drifted');
});

test('Delegate gets a packet (or, from a server without engram/delegate, the clear message)', async () => {
    const params = delegateParams('add refresh tokens', agent, ['src/auth.py']);
    const methods = initResult.capabilities.experimental?.engram?.methods ?? [];
    if (methods.includes(Method.delegate)) {
        const { packet } = await s.connection.sendRequest<{ packet: { packet_id: string } }>(Method.delegate, params);
        assert.match(packet.packet_id, /^[0-9a-f]{64}$/);
        return;
    }
    await assert.rejects(s.connection.sendRequest(Method.delegate, params), (err: unknown) => {
        assert.ok(err instanceof ResponseError);
        assert.equal(err.code, -32601);
        assert.equal(
            errorMessage(err, Method.delegate),
            'engram: this engram server does not support delegation (engram/delegate). Update engram to delegate from the editor.',
        );
        return true;
    });
});

test('Retract records the reason and the status bar follows', async () => {
    const r = await s.connection.sendRequest<{ claim: { status: string } }>(
        Method.retract,
        retractParams(claimId, agent, 'validate raises now'),
    );
    assert.equal(r.claim.status, 'retracted');
    const got = await s.connection.sendRequest<GetResult>(Method.get, getParams(claimId));
    assert.equal(got.claim.status, 'retracted');
    const status = await s.connection.sendRequest<StatusResult>(Method.status, statusParams());
    assert.equal(statusBarView(status).text, 'engram: 1');
});

test('an error names the field, and the server keeps serving', async () => {
    await assert.rejects(
        s.connection.sendRequest(Method.remember, { text: 'x', anchors: [] }),
        (err: unknown) => err instanceof ResponseError && /agent/.test(errorMessage(err, Method.remember)),
    );
    const status = await s.connection.sendRequest<StatusResult>(Method.status, statusParams());
    assert.equal(status.envelope.trust_mode, 'full_trust');
});

test('shutdown and exit end the server cleanly', async () => {
    assert.equal(await s.close(), 0);
});
