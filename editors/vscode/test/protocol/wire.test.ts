// The extension's wire types (src/core/wire.ts) held to the schemas the
// real engram publishes for the same answers: every member a type declares
// is in the schema of the answer it is read from, and every member the
// type requires is one the schema says is always there. The types are read
// from the source with the TypeScript compiler's parser; the schemas come
// from `engram mcp --output-schemas`'s tools/list (without the flag the list
// leaves them out), whose output schemas describe the results engram/*
// methods return over the LSP too.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { after, before, test } from 'node:test';
import * as ts from 'typescript';
import { binary, workspace } from './session';

interface Schema {
    type?: string | string[];
    properties?: Record<string, Schema>;
    required?: string[];
    items?: Schema;
}

interface Member {
    name: string;
    optional: boolean;
}

// Which answer each type is read from: a tool and the path in its output
// schema ('items' steps into an array).
const READ_FROM: Record<string, [string, string[]]> = {
    RecallResult: ['recall', []],
    RecallRow: ['recall', ['rows', 'items']],
    Envelope: ['recall', ['envelope']],
    StoreInfo: ['recall', ['envelope', 'store', 'items']],
    Claim: ['get', ['history', 'items']],
    ClaimAnchor: ['get', ['claim', 'anchors', 'items']],
    GetResult: ['get', []],
    RememberResult: ['remember', []],
    StatusResult: ['status', []],
    AnchorHealth: ['status', ['anchor_health']],
    InboxCounts: ['status', ['inbox']],
    AnchorsResult: ['anchors', []],
    AnchorEntry: ['anchors', ['anchors', 'items']],
    CheckResult: ['check', []],
    Finding: ['check', ['findings', 'items']],
    InboxResult: ['inbox', []],
    InboxBox: ['inbox', ['boxes', 'items']],
    InboxReport: ['inbox', ['boxes', 'items', 'reports', 'items']],
};

// Not answers: an error's shape, and pieces that only nest in the above.
const NOT_ANSWERS = new Set(['RpcError', 'LspPosition', 'LspRange', 'AnchorPlace']);

function interfaces(): Map<string, { members: Member[]; bases: string[] }> {
    const file = path.resolve(__dirname, '../../../src/core/wire.ts');
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    const out = new Map<string, { members: Member[]; bases: string[] }>();
    source.forEachChild((node) => {
        if (!ts.isInterfaceDeclaration(node)) return;
        const members: Member[] = [];
        for (const m of node.members)
            if (ts.isPropertySignature(m) && m.name && ts.isIdentifier(m.name))
                members.push({ name: m.name.text, optional: m.questionToken !== undefined });
        const bases = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(source)));
        out.set(node.name.text, { members, bases });
    });
    return out;
}

async function outputSchemas(root: string, home: string): Promise<Record<string, Schema>> {
    const child = spawn(binary(), ['mcp', '--root', root, '--output-schemas'], {
        env: { ...process.env, ENGRAM_HOME: home },
        stdio: ['pipe', 'pipe', 'ignore'],
    });
    const lines = readline.createInterface({ input: child.stdout });
    const send = (m: object) => child.stdin.write(JSON.stringify(m) + '\n');
    send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wire-test', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    try {
        for await (const line of lines) {
            const msg = JSON.parse(line) as { id?: number; result?: { tools: { name: string; outputSchema: Schema }[] } };
            if (msg.id !== 2 || !msg.result) continue;
            return Object.fromEntries(msg.result.tools.map((t) => [t.name, t.outputSchema]));
        }
        throw new Error('engram mcp closed before answering tools/list');
    } finally {
        child.stdin.end();
        child.kill();
    }
}

function at(schema: Schema, steps: string[]): Schema {
    let s = schema;
    for (const step of steps) {
        const next = step === 'items' ? s.items : s.properties?.[step];
        assert.ok(next, `no '${step}' in the schema`);
        s = next;
    }
    return s;
}

let ws: ReturnType<typeof workspace>;
let schemas: Record<string, Schema>;
let types: ReturnType<typeof interfaces>;

before(async () => {
    ws = workspace();
    schemas = await outputSchemas(ws.root, ws.home);
    types = interfaces();
});
after(() => ws.cleanup());

test('every answer type of wire.ts is mapped to the schema it is read from', () => {
    const unmapped = [...types.keys()].filter((name) => !(name in READ_FROM) && !NOT_ANSWERS.has(name));
    assert.deepEqual(unmapped, [], 'a new type in wire.ts needs its place in READ_FROM');
});

// What is wrong with `types` against `schemas`, one line each.
function problemsOf(types: ReturnType<typeof interfaces>, schemas: Record<string, Schema>): string[] {
    const problems: string[] = [];
    for (const [name, [tool, steps]] of Object.entries(READ_FROM)) {
        const type = types.get(name);
        assert.ok(type, `wire.ts has no interface ${name}`);
        const toolSchema = schemas[tool];
        assert.ok(toolSchema, `engram publishes no output schema for ${tool}`);
        const schema = at(toolSchema, steps);
        const members = [...type.members];
        for (const base of type.bases) members.push(...(types.get(base)?.members ?? []));
        for (const m of members) {
            const where = `${name}.${m.name} (${tool}${steps.map((s) => '.' + s).join('')})`;
            if (!schema.properties || !(m.name in schema.properties)) problems.push(`${where}: not in the schema`);
            else if (!m.optional && !(schema.required ?? []).includes(m.name))
                problems.push(`${where}: required here, but the schema does not say it is always there`);
        }
    }
    return problems;
}

test('wire.ts declares only members the schemas have, and requires only what they always hold', () => {
    assert.deepEqual(problemsOf(types, schemas), []);
});

test('the check can fail: a member the schema lacks, or one it does not always hold, is found', () => {
    const altered = new Map(types);
    const row = altered.get('RecallRow');
    assert.ok(row);
    altered.set('RecallRow', {
        ...row,
        members: [...row.members, { name: 'no_such_member', optional: true }, { name: 'why_empty', optional: false }],
    });
    assert.deepEqual(problemsOf(altered, schemas), [
        'RecallRow.no_such_member (recall.rows.items): not in the schema',
        'RecallRow.why_empty (recall.rows.items): not in the schema',
    ]);
    const result = altered.get('RecallResult');
    assert.ok(result);
    altered.set('RecallRow', row);
    altered.set('RecallResult', {
        ...result,
        members: result.members.map((m) => (m.name === 'why_empty' ? { ...m, optional: false } : m)),
    });
    assert.deepEqual(problemsOf(altered, schemas), [
        'RecallResult.why_empty (recall): required here, but the schema does not say it is always there',
    ]);
});
