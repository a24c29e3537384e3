// Shared harness for the MCP tests: temporary workspaces, the official SDK
// client spawning the real binary, a raw line-level peer for protocol edge
// cases, an LSP peer for `engram serve`, and the CLI.
//
// Every wait is bounded, so a hung server fails a test with its stderr
// instead of hanging the suite.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import Ajv from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export const BINARY = process.env.ENGRAM_BINARY;
if (!BINARY || !fs.existsSync(BINARY)) {
  throw new Error(`ENGRAM_BINARY must name the engram binary (got ${BINARY})`);
}
export const FIXTURE = path.resolve(here, '../../fixtures/sample-workspace');
export const TIMEOUT_MS = 15000;
export const TOOL_NAMES = [
  'anchors', 'check', 'contribute', 'delegate', 'get', 'inbox', 'learn', 'promote', 'recall', 'remember',
  'report', 'resolve', 'retract', 'reverify', 'reverify_file', 'review', 'status', 'verify_packet',
];

// A copy of the sample workspace with an empty `.git/` (where root
// discovery stops) and an empty ENGRAM_HOME beside it; cleanup() removes both.
export function makeWorkspace(name = 'ws') {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-mcp-'));
  const root = path.join(base, name);
  fs.cpSync(FIXTURE, root, { recursive: true });
  fs.mkdirSync(path.join(root, '.git'));
  const home = path.join(base, 'home');
  fs.mkdirSync(home);
  return {
    base,
    root: fs.realpathSync(root),
    home,
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

// The official SDK client over stdio, spawning `engram mcp`. `roots`: a
// list of {uri, name} the client shares (it then declares the roots
// capability), or a function answering roots/list. `structured`: results
// carry their JSON, as a program reading them asks (engram mcp
// --structured); false: what an agent's client gets by default, the text.
export async function connect({ home, args = [], env = {}, cwd, roots, name = 'engram-tests', structured = true } = {}) {
  const transport = new StdioClientTransport({
    command: BINARY,
    args: ['mcp', ...(structured ? ['--structured'] : []), ...args],
    env: { ENGRAM_HOME: home, ...env },
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d.toString();
  });
  let negotiated;
  // The client hands the negotiated revision to transports that want it.
  transport.setProtocolVersion = (v) => {
    negotiated = v;
  };
  const capabilities = roots ? { roots: { listChanged: true } } : {};
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const state = { roots };
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      if (typeof state.roots === 'function') return state.roots();
      return { roots: state.roots };
    });
  }
  await client.connect(transport, { timeout: TIMEOUT_MS });
  return {
    client,
    transport,
    negotiated: () => negotiated,
    stderr: () => stderr,
    setRoots: async (r) => {
      state.roots = r;
      await client.sendRootsListChanged();
    },
    call: (name, args = {}) => client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS }),
    close: () => client.close(),
  };
}

// The JSON Schema validator the SDK itself uses (ajv), in strict mode, so
// a schema with an unknown keyword fails as loudly as a result that does not
// fit it.
export function makeAjv() {
  return new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
}

export function textOf(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

export function pathToUri(p) {
  return 'file://' + p.split('/').map(encodeURIComponent).join('/');
}

// A raw peer: writes lines, reads lines. For what the SDK will not send.
export class RawPeer {
  constructor({ home, args = [], env = {}, cwd, structured = true } = {}) {
    this.proc = spawn(BINARY, ['mcp', ...(structured ? ['--structured'] : []), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ENGRAM_HOME: home, ...env },
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.buf = '';
    this.lines = [];
    this.waiters = [];
    this.stderr = '';
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.proc.stdout.on('data', (d) => {
      this.buf += d.toString();
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(this.buf.slice(0, nl));
        this.buf = this.buf.slice(nl + 1);
      }
      this.wake();
    });
    this.proc.stderr.on('data', (d) => {
      this.stderr += d.toString();
    });
    this.proc.stdin.on('error', () => {});
  }
  wake() {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }
  write(text) {
    this.proc.stdin.write(text);
  }
  send(msg) {
    this.write(JSON.stringify(msg) + '\n');
  }
  // The next line from the server, parsed; fails after the timeout.
  async next(timeout = TIMEOUT_MS) {
    const deadline = Date.now() + timeout;
    while (this.lines.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message from the server within ${timeout} ms; stderr:\n${this.stderr}`);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return JSON.parse(this.lines.shift());
  }
  // True when nothing arrives within `ms`.
  async silentFor(ms) {
    await new Promise((r) => setTimeout(r, ms));
    return this.lines.length === 0;
  }
  async request(method, params, id) {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return this.next();
  }
  async initialize(protocolVersion = '2025-11-25', capabilities = {}) {
    const reply = await this.request('initialize', { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1' } }, 'init');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }
  async close() {
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), TIMEOUT_MS);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

// `engram serve`, spoken to in the LSP base protocol (Content-Length frames).
export class LspPeer {
  constructor({ home, root }) {
    this.proc = spawn(BINARY, ['serve'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ENGRAM_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.root = root;
    this.buf = Buffer.alloc(0);
    this.pending = new Map();
    this.nextId = 0;
    this.stderr = '';
    this.proc.stderr.on('data', (d) => {
      this.stderr += d.toString();
    });
    this.proc.stdout.on('data', (d) => this.onData(d));
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
  }
  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const header = this.buf.subarray(0, end).toString();
      const m = /Content-Length: (\d+)/i.exec(header);
      if (!m) throw new Error(`bad LSP header: ${header}`);
      const len = Number(m[1]);
      if (this.buf.length < end + 4 + len) return;
      const msg = JSON.parse(this.buf.subarray(end + 4, end + 4 + len).toString());
      this.buf = this.buf.subarray(end + 4 + len);
      if (msg.id !== undefined && this.pending.has(msg.id) && !msg.method) {
        this.pending.get(msg.id)(msg);
        this.pending.delete(msg.id);
      } else if (msg.id !== undefined && msg.method) {
        // A request from the server (progress tokens): accept it.
        this.write({ jsonrpc: '2.0', id: msg.id, result: null });
      }
    }
  }
  write(msg) {
    const body = Buffer.from(JSON.stringify(msg));
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }
  request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no reply within ${TIMEOUT_MS} ms; stderr:\n${this.stderr}`)), TIMEOUT_MS);
      this.pending.set(id, (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }
  // The result of a request, or a thrown error carrying the JSON-RPC error.
  async call(method, params) {
    const reply = await this.request(method, params);
    if (reply.error) throw Object.assign(new Error(`${method}: ${reply.error.message}`), { rpc: reply.error });
    return reply.result;
  }
  async start() {
    await this.call('initialize', { processId: process.pid, rootUri: pathToUri(this.root), capabilities: {} });
    this.write({ jsonrpc: '2.0', method: 'initialized', params: {} });
  }
  async stop() {
    await this.call('shutdown', null);
    this.write({ jsonrpc: '2.0', method: 'exit' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), TIMEOUT_MS);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

// One CLI command to completion.
export function cli(args, { home, cwd } = {}) {
  const r = spawnSync(BINARY, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ENGRAM_HOME: home, ENGRAM_AGENT: 'human:cli-test' },
    cwd,
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
