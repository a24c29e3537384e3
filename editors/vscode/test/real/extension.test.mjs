// The extension as a user meets it: installed from the platform .vsix into a
// clean code-server with no engram on PATH, in a workspace holding one claim
// on TokenValidator.validate and an AGENTS.md with a dangling reference.
// The tests run in order against one VS Code session, each building on the
// state the one before it left (as a person's session would).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { extensionDir, VSCode } from './vscode.mjs';

/** @type {VSCode} */
let vs;

before(async () => {
    vs = await VSCode.start();
});
// A failed step leaves a picture of what VS Code showed and the protocol
// trace of the engram output channel, in out/real-failures/.
afterEach(async (t) => {
    if (!vs || t.passed !== false) return;
    const dir = path.join(extensionDir, 'out', 'real-failures');
    fs.mkdirSync(dir, { recursive: true });
    const name = t.name.replace(/[^\w]+/g, '-').slice(0, 60);
    fs.writeFileSync(path.join(dir, `${name}.log`), vs.outputChannel());
    await vs.page.screenshot({ path: path.join(dir, `${name}.png`) }).catch(() => undefined);
});
after(async () => {
    await vs?.stop();
});

const claimsDir = () => path.join(vs.workspace, '.engram', 'claims');
const claimFiles = () => fs.readdirSync(claimsDir()).filter((f) => f.endsWith('.md'));

test('the platform package starts the engram it carries and the status bar shows the store', async () => {
    await vs.statusItem('engram: 1').waitFor({ timeout: 60_000 });
    const servers = vs.engramServers();
    assert.equal(servers.length, 1);
    assert.match(servers[0].binary, /\/engram\.engram-vscode-[^/]+\/bin\/engram$/);
    const version = vs.engram('--version').trim();
    const log = await vs.waitFor(() => {
        const text = vs.outputChannel();
        return text.includes(' is running ') && text;
    }, 'the output channel to say which engram runs');
    assert.match(log, /starting .*\/bin\/engram serve \(from bundled\)/);
    assert.ok(log.includes(`${version} is running (bundled: `), log);
});

test('an unsaved comment edit leaves the claim intact; an unsaved body edit is engram.drifted in Problems', async () => {
    await vs.open('src/auth.py');
    await vs.showProblems();
    await vs.gotoLineEnd(13); // the comment inside validate
    await vs.type(' (see the login service)');
    // Time for the server to parse the change and republish (it does on each).
    await vs.page.waitForTimeout(2500);
    assert.deepEqual(
        (await vs.problems()).filter((p) => p.includes('engram')),
        [],
    );
    await vs.gotoLineEnd(15); // return ValidationResult(ok=False, reason="expired")
    await vs.page.keyboard.press('Backspace'); // the closing parenthesis
    await vs.type(', retry=False)');
    const rows = await vs.waitFor(async () => {
        const p = (await vs.problems()).filter((r) => r.includes('engram.drifted'));
        return p.length ? p : undefined;
    }, 'engram.drifted in the Problems panel');
    assert.equal(rows.length, 1);
    assert.match(rows[0], /validate-silent/);
    // Unsaved: the file on disk is as it was.
    assert.ok(!fs.readFileSync(path.join(vs.workspace, 'src/auth.py'), 'utf8').includes('retry=False'));
});

test('the code lens above the drifted symbol reads "1 memory · 1 drifted"', async () => {
    const lens = vs.page.locator('.codelens-decoration', { hasText: '1 memory · 1 drifted' });
    await lens.first().waitFor({ timeout: 15_000 });
    await vs.statusItem('engram: 1 · 1 drifted').waitFor();
    await vs.screenshot('vscode-problems.png');
});

test('the quick fix re-verifies the memory and the problem goes away', async () => {
    await vs.gotoLineEnd(12); // def validate
    await vs.page.keyboard.press('Control+.');
    const fix = vs.page.locator('.action-widget .monaco-list-row', { hasText: 'Re-verify this memory' });
    await fix.first().waitFor();
    await fix.first().click();
    await vs.waitFor(
        async () => (await vs.problems()).every((r) => !r.includes('engram')),
        'the drifted problem to clear',
    );
    const claim = fs.readFileSync(path.join(claimsDir(), claimFiles()[0]), 'utf8');
    assert.match(claim, /verified: /);
});

test('Remember records a claim on the symbol at the cursor; Recall finds it and goes to its code', async () => {
    await vs.open('src/db.py');
    await vs.gotoLineEnd(8);
    await vs.command('engram: Remember…');
    await vs.answer('connections come from one shared pool per process');
    await vs.page.locator('.notification-list-item', { hasText: 'engram: remembered' }).first().waitFor();
    await vs.statusItem('engram: 2').waitFor();
    assert.equal(claimFiles().length, 2);

    await vs.open('src/auth.py');
    await vs.command('engram: Recall…');
    await vs.answer('shared pool');
    const row = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'shared pool per process' });
    await row.first().waitFor();
    await vs.page.keyboard.press('Enter');
    await vs.page.locator('.tab.active[data-resource-name="db.py"]').waitFor();
});

test('the Memories view lists claims by file and symbol, worst first, and re-verifies from its row', async () => {
    // Drift the validate claim again (unsaved), then look at the view.
    await vs.open('src/auth.py');
    await vs.gotoLineEnd(16);
    await vs.page.keyboard.press('Backspace');
    await vs.type(', retry=True)');
    // VS Code asks for lenses again only while the editor has focus.
    const lens = (text) => vs.page.locator('.codelens-decoration', { hasText: text }).first();
    await lens('1 memory · 1 drifted').waitFor({ timeout: 15_000 });
    await vs.page.keyboard.press('Control+Shift+E');
    const view = await vs.focusView('Memories');
    const rows = view.locator('.monaco-list-row');
    const drifted = rows.filter({ hasText: 'validate returns ok=False' }).filter({ hasText: 'drifted' });
    await drifted.first().waitFor({ timeout: 20_000 });
    const texts = await rows.allInnerTexts();
    // auth.py (drifted) comes before db.py (intact); the instruction file's
    // dangling reference is listed beside them.
    const at = (s) => texts.findIndex((t) => t.includes(s));
    assert.ok(at('auth.py') >= 0 && at('db.py') > at('auth.py'), texts.join('\n'));
    assert.ok(at('TokenValidator.validate') > at('auth.py'), texts.join('\n'));
    assert.ok(at('Instruction files') > at('db.py'), texts.join('\n'));
    await vs.screenshot('vscode-memories.png');

    // The row's inline Re-verify action; the note is optional.
    await drifted.first().hover();
    await drifted.first().locator('.action-label[aria-label="Re-verify"]').click();
    await vs.answer('checked: retry does not change the expired case');
    await rows
        .filter({ hasText: 'validate returns ok=False' })
        .filter({ hasText: 'intact' })
        .first()
        .waitFor({ timeout: 20_000 });
    // The server asks VS Code to refresh its lenses after the write: the
    // editor's lens follows without being touched.
    await vs.waitFor(
        async () => (await vs.page.locator('.codelens-decoration').allInnerTexts()).some((t) => t.trim() === '1 memory'),
        'the lens to drop "drifted"',
    );

    // Clicking a claim opens its code where it is now.
    await rows.filter({ hasText: 'shared pool per process' }).first().click();
    await vs.page.locator('.tab.active[data-resource-name="db.py"]').waitFor();
});

test('the Memories view filters by state, and the filter is cleared', async () => {
    const view = await vs.focusView('Memories');
    const rows = view.locator('.monaco-list-row');
    await vs.command('engram: Filter Memories…');
    const input = vs.page.locator('.quick-input-widget input');
    await input.fill('orphaned');
    // A click on the row ticks it; OK accepts the picks.
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'orphaned' }).first().click();
    await vs.page.locator('.quick-input-widget', { hasText: '1 Selected' }).waitFor();
    await vs.page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).click();
    // Nothing is orphaned: the view says so rather than looking empty.
    await rows.filter({ hasText: 'No memory matches the filter' }).first().waitFor();
    assert.match(await view.locator('.pane-header').innerText(), /filtered: orphaned/);
    await vs.command('engram: Clear Filter');
    await rows.filter({ hasText: 'shared pool per process' }).first().waitFor();
    assert.doesNotMatch(await view.locator('.pane-header').innerText(), /filtered/);
});

test('a killed engram serve is restarted and the status bar comes back', async () => {
    const [before] = vs.engramServers();
    process.kill(before.pid, 'SIGKILL');
    const after = await vs.waitFor(() => {
        const now = vs.engramServers();
        return now.length === 1 && now[0].pid !== before.pid && now[0];
    }, 'a new engram serve');
    assert.equal(after.binary, before.binary);
    await vs.statusItem('engram: 2').waitFor({ timeout: 30_000 });
});

test('past the list limit, an old claim drifted by an unsaved edit is still listed first', async () => {
    // 200 newer claims push the validate claim out of recall's newest 200.
    for (let i = 0; i < 200; i++) vs.engram('remember', `bulk note ${i} about the retry loop`, '--agent', 'claude:bulk');
    const view = await vs.focusView('Memories');
    const rows = view.locator('.monaco-list-row');
    await rows.filter({ hasText: 'Showing the 200 newest memories' }).first().waitFor({ timeout: 20_000 });
    // Past engram.memories.findingsLimit (100 here) the findings are not
    // read after each write: the view says how old they are.
    await rows.filter({ hasText: 'Findings as of' }).first().waitFor();
    await vs.open('src/auth.py');
    await vs.gotoLineEnd(16);
    await vs.page.keyboard.press('Backspace');
    await vs.type(', retry=None)');
    await vs.page.locator('.codelens-decoration', { hasText: '1 memory · 1 drifted' }).first().waitFor({ timeout: 15_000 });
    await vs.focusView('Memories');
    const drifted = rows.filter({ hasText: 'validate returns ok=False' }).filter({ hasText: 'drifted' });
    await drifted.first().waitFor({ timeout: 20_000 });
    // The note that the list is cut comes first, then the drifted claim's file.
    const texts = await rows.allInnerTexts();
    assert.match(texts[0], /Showing the 200 newest memories/, texts.slice(0, 5).join('\n'));
    assert.match(texts[1], /Findings as of/, texts.slice(0, 5).join('\n'));
    assert.match(texts[2], /auth\.py/, texts.slice(0, 5).join('\n'));

    // Refresh reads them: the note goes, the instruction files' findings stay.
    await vs.command('engram: Refresh');
    await vs.waitFor(async () => !(await rows.allInnerTexts()).some((t) => t.includes('Findings as of')), 'the note to go');
    await rows.filter({ hasText: 'Not anchored to code' }).first().click(); // folds the 200 away
    await rows.filter({ hasText: 'Instruction files' }).first().waitFor();
});
