// A scripted agent session over the official SDK client, on a real
// repository: psf/requests as Debian's python3-requests installs it
// (scripts/setup.sh --tests), copied into a git repository. Fifteen claims
// worded as people word them, anchored to real code; recalls for tasks
// mid-work; an edit on disk that drifts one claim and renames the code of
// another; a hand-off to a sub-agent, its packet checked by id, its findings
// contributed and reviewed; status and check.
//
// Every answer's bytes are recorded as the client receives the result
// (JSON.stringify of it): what lands in a model's context. Used by the
// test that holds the budgets (session.test.mjs) and by the benchmark that
// quotes them (bench/agent_session.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { connect } from './helpers.mjs';

export const REQUESTS_DIR = '/usr/lib/python3/dist-packages/requests';

export const CLAIMS = [
  ['send-wraps-retry', 'gotcha', 'src/requests/adapters.py#HTTPAdapter.send',
    "HTTPAdapter.send turns urllib3's MaxRetryError into requests' own errors: a ConnectTimeoutError reason becomes ConnectTimeout, a proxy failure becomes ProxyError"],
  ['retries-on-adapter', 'fact', 'src/requests/adapters.py#HTTPAdapter.__init__',
    'Retries are set on the adapter (max_retries), not per request; the default is no retry at all, and a read error is never retried'],
  ['no-proxy-cidr', 'fact', 'src/requests/utils.py#should_bypass_proxies',
    'should_bypass_proxies treats no_proxy entries as CIDR blocks for IP hosts and as suffixes for host names'],
  ['trust-env', 'convention', 'src/requests/sessions.py#Session.merge_environment_settings',
    'Environment settings (proxies, REQUESTS_CA_BUNDLE, netrc) only apply when the session has trust_env on'],
  ['strip-auth-redirect', 'gotcha', 'src/requests/sessions.py#SessionRedirectMixin.rebuild_auth',
    'On a redirect to another host the Authorization header is dropped, so credentials never follow a redirect off-site'],
  ['max-redirects', 'fact', 'src/requests/sessions.py#SessionRedirectMixin.resolve_redirects',
    'resolve_redirects gives up after max_redirects (30 unless changed) and raises TooManyRedirects'],
  ['raise-for-status', 'fact', 'src/requests/models.py#Response.raise_for_status',
    'raise_for_status raises HTTPError for 4xx and 5xx only; the reason is decoded as utf-8, then latin-1'],
  ['json-body', 'gotcha', 'src/requests/models.py#PreparedRequest.prepare_body',
    'A json= body is only used when neither data nor files were given, and only then is Content-Type set to application/json'],
  ['stream-once', 'gotcha', 'src/requests/models.py#Response.iter_content',
    'A streamed body can be read once: calling iter_content again after it was consumed raises StreamConsumedError'],
  ['netrc-errors', 'fact', 'src/requests/utils.py#get_netrc_auth',
    'get_netrc_auth reads ~/.netrc (or $NETRC) and swallows parse errors unless raise_errors is set'],
  ['super-len-position', 'fact', 'src/requests/utils.py#super_len',
    'super_len counts a file body from its current position, so a partly read file sends only what is left'],
  ['mount-longest-prefix', 'convention', 'src/requests/sessions.py#Session.mount',
    'Session.mount keeps adapters ordered longest prefix first, so the most specific prefix wins'],
  ['json-decode-error', 'fact', 'src/requests/models.py#Response.json',
    'Response.json raises RequestsJSONDecodeError, which is also a ValueError, when the body is not JSON'],
  ['ca-bundle-missing', 'gotcha', 'src/requests/adapters.py#HTTPAdapter.cert_verify',
    'cert_verify raises OSError when the CA bundle path does not exist, before any connection is tried'],
  ['session-threads', 'decision', 'src/requests/sessions.py#Session',
    'Share one Session across threads only for its connection pool; mutating its headers or cookies from several threads is not safe'],
];

export const TASKS = [
  'how does requests decide to retry a failed connection?',
  'where are proxies bypassed for no_proxy hosts',
  'does a redirect to another host keep the Authorization header',
  'why does reading the streamed response twice fail',
  'how is the request body encoded as json',
  'what exception does a connect timeout raise',
  'how are adapters chosen for a URL',
  'what happens when the response is not valid json',
];

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

// The repository: requests' package under src/, committed.
export function makeRequestsWorkspace() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-session-'));
  const root = path.join(base, 'requests');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.cpSync(REQUESTS_DIR, path.join(root, 'src/requests'), {
    recursive: true,
    filter: (p) => !p.includes('__pycache__'),
  });
  git(root, 'init', '-q');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '-A');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'requests');
  const home = path.join(base, 'home');
  fs.mkdirSync(home);
  return { base, root: fs.realpathSync(root), home, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

// Runs the session; `structured`: results carry their JSON too (engram mcp
// --structured), as a program asks. Returns one record per call:
// {step, tool, bytes, rows?, error?}.
export async function runSession({ structured = false } = {}) {
  const ws = makeRequestsWorkspace();
  const s = await connect({ home: ws.home, args: ['--root', ws.root], structured, name: 'session' });
  const calls = [];
  const size = (r) => JSON.stringify(r).length;
  const call = async (step, tool, args) => {
    const r = await s.call(tool, args);
    const rec = { step, tool, bytes: size(r) };
    if (r.isError) rec.error = r.content[0].text;
    const text = r.content[0]?.text ?? '';
    if (tool === 'recall') rec.rows = Number((text.match(/^(\d+) claims?\n/) ?? [0, 0])[1]);
    calls.push(rec);
    return r;
  };
  try {
    const listed = await s.client.listTools();
    calls.push({ step: 'session start', tool: 'tools/list', bytes: size(listed) });
    for (const [label, kind, anchor, text] of CLAIMS)
      await call('learn the code', 'remember', { text, label, kind, anchors: [anchor], agent: 'claude:maker' });
    for (const task of TASKS) await call('recall for a task', 'recall', { query: task });
    await call('recall the latest', 'recall', {});
    await call('recall in a file', 'recall', { query: 'proxies', path: 'src/requests/utils.py' });

    // An edit on disk: should_bypass_proxies changes, get_netrc_auth is renamed.
    const utils = path.join(ws.root, 'src/requests/utils.py');
    let code = fs.readFileSync(utils, 'utf8');
    code = code.replace('def should_bypass_proxies(url, no_proxy):\n', 'def should_bypass_proxies(url, no_proxy):\n    url = url.strip()\n');
    code = code.replaceAll('get_netrc_auth', 'netrc_auth_for');
    fs.writeFileSync(utils, code);
    await call('recall after an edit', 'recall', { query: 'no_proxy bypass netrc', path: 'src/requests/utils.py' });
    await call('check', 'check', {});

    const d = await call('hand off', 'delegate', { task: 'make proxy bypass rules configurable per session', paths: ['src/requests/utils.py', 'src/requests/sessions.py'] });
    const text = d.content[0].text;
    const packetId = (text.match(/^Packet ([0-9a-f]{64})/) ?? [])[1];
    await call('sub-agent checks its packet', 'verify_packet', { packet_id: packetId });
    const c = await call('sub-agent reports', 'contribute', {
      packet_id: packetId,
      agent: 'claude:child',
      items: [
        { text: 'should_bypass_proxies now strips the URL before matching no_proxy entries', anchors: ['src/requests/utils.py#should_bypass_proxies'] },
        { text: 'get_netrc_auth was renamed netrc_auth_for; callers in sessions.py still use the old name', anchors: ['src/requests/utils.py#netrc_auth_for'] },
      ],
    });
    const contribution = (c.content[0].text.match(/\b(k-[a-z0-9]+)/) ?? [])[1];
    await call('review', 'review', { contribution_id: contribution, decision: 'accept', reason: 'matches the code', agent: 'claude:maker' });
    await call('status', 'status', {});
  } finally {
    await s.close();
    ws.cleanup();
  }
  return calls;
}

export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return 0;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}
