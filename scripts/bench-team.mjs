// The team bench (`npm run bench -- --only team`, issue #38 item 5): 8 clones of one repository ("hosts") ×
// 8 agents each, every agent streaming edit and shell hooks at once against one throwaway PostgreSQL server,
// with 0 and with 2 ms added to every round trip (a TCP proxy in this process that holds each chunk half
// that long each way); beside it the same 64 agents on one host's SQLite file. Reports each hook's p50/p99
// and the calls per second of the whole run. Every call is checked: an edit hook must allow silently (it
// reserved the file), a shell hook must not say that it could not check.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOSTS = 8;
const AGENTS_PER_HOST = 8;

// A TCP proxy to `port` that delays every chunk by `oneWayMs` in each direction, in order.
export async function startLatencyProxy(port, oneWayMs) {
  const sockets = new Set();
  const relay = (from, to) => {
    from.on('data', (chunk) => (oneWayMs > 0 ? setTimeout(() => to.destroyed || to.write(chunk), oneWayMs) : to.write(chunk)));
    from.on('close', () => setTimeout(() => to.destroy(), oneWayMs));
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

function git(cwd, ...args) {
  execFileSync('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=Bench', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'ignore' });
}

// One repository with a commit, and `count` clones of it in directories of their own.
function clones(root, count) {
  const origin = join(root, 'origin');
  git(root, 'init', '-q', '-b', 'main', origin);
  writeFileSync(join(origin, 'README.md'), 'team bench\n');
  git(origin, 'add', 'README.md');
  git(origin, 'commit', '-q', '-m', 'root');
  return Array.from({ length: count }, (_, i) => {
    const dir = join(root, `host-${i}`, 'work');
    git(root, 'clone', '-q', origin, dir);
    return dir;
  });
}

const sessionOf = (agent) => `7e1d2c3b-${String(agent).padStart(4, '0')}-4a5b-8c6d-0e1f2a3b4c5d`;

function editPayload(dir, agent, n) {
  return JSON.stringify({
    session_id: sessionOf(agent),
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_use_id: `e-${agent}-${n}`,
    tool_input: { file_path: join(dir, 'src', `agent${agent}`, `file${n}.ts`), old_string: 'a', new_string: 'b' },
  });
}

function shellPayload(dir, agent, n) {
  const command = `mkdir -p out/agent${agent} && echo ${n} > out/agent${agent}/run${n}.log && grep -rn TODO src | head`;
  return JSON.stringify({ session_id: sessionOf(agent), cwd: dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: `s-${agent}-${n}`, tool_input: { command } });
}

const withoutDb = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'IC_DB'));

// At most `limit` hook processes at once: 64 at once on a 2-core machine would measure the machine's run queue,
// not the server (8 real hosts would each run their own).
function gate(limit) {
  let running = 0;
  const waiting = [];
  return async (work) => {
    if (running >= limit) await new Promise((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

function runHook(ic, name, dir, input, env) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    // IC_HOOK_TIMEOUT 60s: on a loaded machine a hook can take longer than its default 5 s, and one that
    // fails open by its deadline did no work; the bench times the work.
    const child = spawn(process.execPath, [ic, 'coord', 'hook', name], {
      // as `ic coord install` writes it
      cwd: dir,
      env: { ...withoutDb, IC_OWNER: '', IC_HOOK_TIMEOUT: '60s', ...env },
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.resume();
    child.on('close', (code) => resolve({ name, code, stdout, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    child.stdin.end(input);
  });
}

// A call that did not do the work must not count as a fast one.
function failed(call) {
  if (call.code !== 0) return true;
  return call.name === 'claude-pre-edit' ? call.stdout !== '' : /could not check|deny/.test(call.stdout);
}

// Every agent at once, each `rounds` times an edit hook then a shell hook, one after the other.
async function stream(ic, dirs, env, rounds, inflight) {
  const started = process.hrtime.bigint();
  const slot = gate(inflight);
  const agents = Array.from({ length: HOSTS * AGENTS_PER_HOST }, async (_, agent) => {
    const dir = dirs[agent % dirs.length];
    const calls = [];
    for (let n = 0; n < rounds; n++) {
      calls.push(await slot(() => runHook(ic, 'claude-pre-edit', dir, editPayload(dir, agent, n), env)));
      calls.push(await slot(() => runHook(ic, 'claude-pre-shell', dir, shellPayload(dir, agent, n), env)));
    }
    return calls;
  });
  const calls = (await Promise.all(agents)).flat();
  return { calls, wallMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

function rowsOf(label, { calls, wallMs }) {
  const bad = calls.filter(failed);
  return ['claude-pre-edit', 'claude-pre-shell'].map((name, i) => {
    const ms = calls.filter((call) => call.name === name).map((call) => call.ms);
    return {
      name: `${label}: ${name === 'claude-pre-edit' ? 'edit' : 'shell'} hook p50 / p99 (ms)`,
      median: percentile(ms, 50),
      min: Math.min(...ms),
      max: percentile(ms, 99),
      ...(i === 0
        ? {
            target: `${((calls.length / wallMs) * 1000).toFixed(1)} calls/s`,
            ok: bad.length === 0,
            note: `${calls.length} calls in ${(wallMs / 1000).toFixed(1)} s; ${bad.length} failed or failed open${bad.length ? `, e.g. ${JSON.stringify(bad[0].stdout.slice(0, 160))}` : ''}`,
          }
        : {}),
    };
  });
}

// `rows`: bench.mjs's table (min column: the fastest call; max column: p99). `rounds`: edit+shell pairs per
// agent; `inflight`: hook processes at once.
export async function benchTeam({ ic, rows, rounds, inflight, db }) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ic-bench-team-')));
  const postgres = await import('./postgres-server.mjs');
  const server = db ? undefined : await postgres.startPostgres();
  try {
    const hosts = clones(root, HOSTS);
    // 64 agents on one host's SQLite file: one clone.
    rows.push(...rowsOf(`SQLite, 64 agents on 1 host, ${inflight} at once`, await stream(ic, [hosts[0]], {}, rounds, inflight)));
    for (const addedMs of [0, 2]) {
      // The server by TCP through the proxy, so both runs pay the same hop and differ only by the delay.
      const proxy = await startLatencyProxy(server ? server.port : Number(new URL(db).port || 5432), addedMs / 2);
      try {
        const base = server ? server.tcpUrl : db;
        const url = base.replace(/@[^/]*\//, `@127.0.0.1:${proxy.port}/`);
        const project = `team-bench-${process.pid}-${addedMs}`;
        for (const dir of hosts) git(dir, 'config', 'ic.project', project); // a fresh scope for each run
        rows.push(...rowsOf(`PostgreSQL +${addedMs} ms RTT, 8 hosts × 8 agents, ${inflight} at once`, await stream(ic, hosts, { IC_DB: url }, rounds, inflight)));
      } finally {
        proxy.close();
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    if (server) postgres.stopPostgres(server.dir);
  }
}
