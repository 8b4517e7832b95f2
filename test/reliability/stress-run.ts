// Lock-set stress with faults: many real `ic` processes reserve, renew, check and release overlapping
// patterns while a fault injector SIGKILLs and SIGSTOP/SIGCONTs them and a sweeper runs. Every invocation
// and its result go to a JSON-lines log; afterwards checkHistory (test/support/replay.ts) replays the log
// with the events and locks tables and reports every violation. Used by `npm run stress` and by
// test/reliability/stress.test.ts (a small configuration).
import { spawn, execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkHistory, reserveTag, type EventRow, type Invocation, type LockRow, type StressOp } from '../support/replay';
import { seeded } from '../support/random';

// Overlapping on purpose: `**`, classes, braces, `?`, nested globstars, disjoint islands.
export const PATTERN_POOL: readonly string[] = [
  '**',
  'src/**',
  'src/*.ts',
  'src/a.ts',
  'src/b.ts',
  'src/{a,b}.ts',
  'src/[ab].ts',
  'src/?.ts',
  'src/[!a].ts',
  'src/**/*.test.ts',
  'src/lib/**',
  'src/lib/x.ts',
  'docs/**',
  'docs/*.md',
  'docs/{guide,api}/*.md',
  '**/*.md',
  '*.md',
  'README.md',
  'lib/*/x.ts',
  'lib/**/x.ts',
  'lib/[a-c]/x.ts',
  'test/**',
  'test/e2e/*.test.ts',
  'pkg/0/**',
  'pkg/1/**',
  'pkg/2/*.ts',
  'pkg/3/a.ts',
  'pkg/{4,5}/**',
  'pkg/[67]/x.ts',
  'pkg/8/**',
  'pkg/9/?.ts',
];

export interface StressOptions {
  bin: string;
  ops: number;
  procs: number;
  owners: number;
  seed: number;
  /** One fault (kill or stop) every this many ms; 0 turns faults off. */
  faultEveryMs: number;
  sweepEveryMs: number;
  lockDelayMs: number;
  /** Where the run's directory (repo, database, log) goes; removed afterwards unless keep. */
  keep?: boolean;
  log?: (line: string) => void;
  /** A database other than the run's own SQLite file (test/postgres/stress.test.ts: a PostgreSQL URL), and how to read its rows afterwards. */
  database?: StressDatabase;
  /** Once this many operations have started, `outage` runs (a server restart) while the others go on. */
  outageAfterOps?: number;
  outage?: () => Promise<void>;
}

export interface StressDatabase {
  url: string;
  read: () => Promise<ServerRows>;
}

export interface StressResult {
  violations: string[];
  counts: Record<string, number>;
  seconds: number;
  dir: string;
  logFile: string;
}

export const DEFAULT_STRESS: Omit<StressOptions, 'bin'> = { ops: 2000, procs: 16, owners: 8, seed: 1, faultEveryMs: 150, sweepEveryMs: 400, lockDelayMs: 1000 };

let stopRequested = false;

// Stops starting new operations; the run then drains, checks what it did and reports (SIGINT in the script).
export function requestStop(): void {
  stopRequested = true;
}

interface Running {
  inv: Invocation;
  pid: number;
  stoppedUntil: number;
}

export async function runStress(options: StressOptions): Promise<StressResult> {
  const log = options.log ?? (() => {});
  const random = seeded(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-stress-')));
  execFileSync('git', ['init', '-q', dir]);
  // A server database names the project by its root commit, which this repository has not: name it.
  if (options.database) execFileSync('git', ['-C', dir, 'config', 'ic.project', `stress-${options.seed}`]);
  const db = join(dir, '.ic', 'ic.db');
  mkdirSync(join(dir, '.ic'));
  const logFile = join(dir, 'history.jsonl');
  writeFileSync(logFile, '');
  // Owner i holds TTL 2s..5s: short, so that expiry happens during the run, and fixed, so the checker
  // knows every expiry exactly (see replay.ts).
  const ttlByOwner: Record<string, number> = {};
  for (let i = 0; i < options.owners; i++) ttlByOwner[`agent-${i}`] = 2000 + ((i * 500) % 3500);
  const owners = Object.keys(ttlByOwner);
  const known = new Map<string, string[]>(owners.map((o) => [o, []])); // lock ids each owner was granted
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', IC_DB: options.database?.url ?? db, IC_LOCK_DELAY: `${options.lockDelayMs}ms` };
  // A named database that does not exist is refused to readers (69): create it before the first call, which may be a check.
  execFileSync(options.bin, ['init'], { cwd: dir, env, stdio: 'ignore' });
  const running = new Set<Running>();
  const invocations: Invocation[] = [];
  let nextId = 1;
  let started = 0;
  let kills = 0;
  let stops = 0;
  const t0 = Date.now();

  const invoke = (op: StressOp, args: string[], owner: string | null, patterns: string[], shared: boolean): Promise<Invocation> =>
    new Promise((resolve) => {
      const inv: Invocation = { id: nextId++, op, args, owner, patterns, shared, start: Date.now(), end: 0, exitCode: null, signal: null, killed: false, stopped: false, stdout: '', stderr: '' };
      const finalArgs = op === 'reserve' ? [...args, '--reason', reserveTag(inv.id, shared)] : op === 'release' || op === 'force-release' ? [...args, '--reason', `inv:${inv.id}`] : args;
      inv.args = finalArgs;
      const child = spawn(options.bin, finalArgs, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const entry: Running = { inv, pid: child.pid ?? -1, stoppedUntil: 0 };
      running.add(entry);
      child.stdout.on('data', (chunk: Buffer) => (inv.stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (inv.stderr += chunk.toString()));
      child.on('exit', () => (inv.end = Date.now()));
      child.on('close', (code, signal) => {
        inv.end ||= Date.now();
        inv.exitCode = code;
        inv.signal = signal;
        running.delete(entry);
        invocations.push(inv);
        appendFileSync(logFile, `${JSON.stringify(inv)}\n`);
        resolve(inv);
      });
    });

  const lastGrant = new Map<string, { pattern: string; shared: boolean }>();

  // One random operation by a random owner, weighted toward reserve and check.
  const operate = async (): Promise<void> => {
    const owner = pick(owners);
    const ttl = `${ttlByOwner[owner]}ms`;
    const ids = known.get(owner)!;
    const roll = random();
    if (roll < 0.4) {
      // Now and then the owner re-reserves its last grant in the other mode: a renewal that switches
      // shared/exclusive in place, which the checker must follow through time.
      const last = lastGrant.get(owner);
      const flip = last !== undefined && random() < 0.3;
      const patterns = flip ? [last.pattern] : random() < 0.25 ? [pick(PATTERN_POOL), pick(PATTERN_POOL)] : [pick(PATTERN_POOL)];
      const shared = flip ? !last.shared : random() < 0.3;
      const inv = await invoke('reserve', ['coord', 'reserve', ...patterns, '--owner', owner, '--ttl', ttl, ...(shared ? ['--shared'] : [])], owner, patterns, shared);
      if (inv.exitCode === 0) for (const lock of JSON.parse(inv.stdout).locks ?? []) if (!ids.includes(lock.id)) ids.push(lock.id);
      if (inv.exitCode === 0 && patterns.length === 1) lastGrant.set(owner, { pattern: patterns[0]!, shared });
    } else if (roll < 0.65) {
      const patterns = [pick(PATTERN_POOL)];
      const shared = random() < 0.3;
      await invoke('check', ['coord', 'check', ...patterns, '--owner', owner, ...(shared ? ['--shared'] : [])], owner, patterns, shared);
    } else if (roll < 0.77) {
      const target = ids.length && random() < 0.6 ? [pick(ids)] : [];
      await invoke('renew', ['coord', 'renew', ...target, '--owner', owner, '--ttl', ttl], owner, [], false);
    } else if (roll < 0.97) {
      const how = random();
      const args = how < 0.5 && ids.length ? [pick(ids)] : how < 0.75 ? ['--pattern', pick(PATTERN_POOL)] : ['--all'];
      const inv = await invoke('release', ['coord', 'release', ...args, '--owner', owner], owner, [], false);
      if (inv.exitCode === 0) for (const lock of JSON.parse(inv.stdout).released ?? []) if (ids.includes(lock.id)) ids.splice(ids.indexOf(lock.id), 1);
      if (ids.length > 50) ids.splice(0, ids.length - 50);
    } else {
      const victim = pick(owners.filter((o) => o !== owner));
      const victimIds = known.get(victim)!;
      if (!victimIds.length) return;
      await invoke('force-release', ['coord', 'release', pick(victimIds), '--force', '--owner', owner], owner, [], false);
    }
  };

  // The outage (a server restart): every invocation alive meanwhile may have lost its connection, before or
  // during its commit, so its outcome is unknown to it (see replay.ts, Invocation.outage).
  const outages: { start: number; end: number }[] = [];
  let outageRun: Promise<void> | undefined;
  const worker = async (): Promise<void> => {
    while (started < options.ops && !stopRequested) {
      started++;
      if (options.outage && started === options.outageAfterOps) {
        const window = { start: Date.now(), end: Infinity };
        outages.push(window);
        log(`  outage after ${started} operations`);
        outageRun = options.outage().then(() => void (window.end = Date.now()));
      }
      await operate();
    }
  };

  let done = false;
  const sweeper = async (): Promise<void> => {
    while (!done) {
      await invoke('sweep', ['coord', 'sweep'], null, [], false);
      await new Promise((r) => setTimeout(r, options.sweepEveryMs));
    }
  };

  // Faults: mostly SIGKILL; otherwise SIGSTOP for 20 ms..1.5 s, then SIGCONT (a paused writer holds the
  // write lock meanwhile: others wait, or give up with BUSY, which is allowed).
  const faults =
    options.faultEveryMs > 0
      ? setInterval(() => {
          const candidates = [...running].filter((r) => r.pid > 0 && r.stoppedUntil === 0);
          if (!candidates.length) return;
          const victim = candidates[Math.floor(random() * candidates.length)]!;
          try {
            if (random() < 0.65) {
              process.kill(victim.pid, 'SIGKILL');
              victim.inv.killed = true;
              kills++;
            } else {
              const pause = 20 + Math.floor(random() * 1480);
              process.kill(victim.pid, 'SIGSTOP');
              victim.inv.stopped = true;
              victim.stoppedUntil = Date.now() + pause;
              stops++;
              setTimeout(() => {
                try {
                  process.kill(victim.pid, 'SIGCONT');
                } catch {
                  /* already gone */
                }
                victim.stoppedUntil = 0;
              }, pause);
            }
          } catch {
            /* exited meanwhile */
          }
        }, options.faultEveryMs)
      : undefined;

  const progress = setInterval(() => {
    const seconds = (Date.now() - t0) / 1000;
    log(`  ${invocations.length} invocations in ${seconds.toFixed(0)}s (${(invocations.length / seconds).toFixed(1)}/s), ${kills} kills, ${stops} stops`);
  }, 30_000);

  const sweeping = sweeper();
  await Promise.all(Array.from({ length: options.procs }, worker));
  await outageRun;
  done = true;
  if (faults) clearInterval(faults);
  clearInterval(progress);
  await sweeping;
  for (const r of running) process.kill(r.pid, 'SIGCONT');
  while (running.size) await new Promise((r) => setTimeout(r, 50));
  const seconds = (Date.now() - t0) / 1000;
  for (const inv of invocations) if (outages.some((o) => inv.start <= o.end && inv.end >= o.start)) inv.outage = true;

  writeFileSync(join(dir, 'run.json'), JSON.stringify({ ttlByOwner, lockDelayMs: options.lockDelayMs, kills, stops, seconds }));
  const result = checkRun(dir, invocations, { ttlByOwner, lockDelayMs: options.lockDelayMs, kills, stops, seconds }, await options.database?.read());
  if (!options.keep && result.violations.length === 0) rmSync(dir, { recursive: true, force: true });
  return result;
}

interface RunFacts {
  ttlByOwner: Record<string, number>;
  lockDelayMs: number;
  kills: number;
  stops: number;
  seconds: number;
}

export const STRESS_EVENTS_SQL = 'SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail FROM events ORDER BY id';
export const STRESS_LOCKS_SQL = 'SELECT * FROM locks';

type ServerRows = { events: EventRow[]; locks: LockRow[] };

// Reads the database a run left (a server's: its rows, read by the caller) and checks it with the run's history.
function checkRun(dir: string, invocations: Invocation[], facts: RunFacts, server?: ServerRows): StressResult {
  let events: EventRow[];
  let locks: LockRow[];
  let integrity: unknown = 'ok'; // a server's integrity is its own
  if (server) ({ events, locks } = server);
  else {
    const conn = new Database(join(dir, '.ic', 'ic.db'));
    events = conn.prepare(STRESS_EVENTS_SQL).all() as EventRow[];
    locks = conn.prepare(STRESS_LOCKS_SQL).all() as LockRow[];
    integrity = conn.pragma('integrity_check', { simple: true });
    conn.close();
  }
  const sorted = [...invocations].sort((a, b) => a.id - b.id);
  const report = checkHistory({ events, locks, invocations: sorted, ttlByOwner: facts.ttlByOwner, lockDelayMs: facts.lockDelayMs });
  if (integrity !== 'ok') report.violations.push(`integrity_check: ${String(integrity)}`);
  const counts = {
    ...report.counts,
    kills: facts.kills,
    stops: facts.stops,
    seconds: Math.round(facts.seconds),
    violations: report.violations.length ? Math.max(report.counts.violations ?? 0, report.violations.length) : 0,
  };
  return { violations: report.violations, counts, seconds: facts.seconds, dir, logFile: join(dir, 'history.jsonl') };
}

// Checks a kept run again (e.g. after a checker fix) from its directory: history.jsonl, run.json, database.
export function recheckRun(dir: string, fallback: Partial<RunFacts> = {}): StressResult {
  const invocations = readFileSync(join(dir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Invocation);
  const facts = existsSync(join(dir, 'run.json')) ? (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunFacts) : undefined;
  const owners = new Set(invocations.map((inv) => inv.owner).filter((o): o is string => o !== null));
  const ttlByOwner = facts?.ttlByOwner ?? Object.fromEntries([...owners].map((o) => [o, 2000 + ((Number(o.replace(/\D/g, '')) * 500) % 3500)]));
  return checkRun(dir, invocations, {
    ttlByOwner,
    lockDelayMs: facts?.lockDelayMs ?? fallback.lockDelayMs ?? DEFAULT_STRESS.lockDelayMs,
    kills: facts?.kills ?? fallback.kills ?? invocations.filter((inv) => inv.killed).length,
    stops: facts?.stops ?? fallback.stops ?? invocations.filter((inv) => inv.stopped).length,
    seconds: facts?.seconds ?? fallback.seconds ?? 0,
  });
}

// The one-paragraph summary both the script and the test print.
export function summarize(result: StressResult): string {
  const c = result.counts;
  const n = (key: string) => c[key] ?? 0;
  return [
    `ops ${n('ops')} (reserve ${n('ops.reserve')}, check ${n('ops.check')}, renew ${n('ops.renew')}, release ${n('ops.release') + n('ops.force-release')}, sweep ${n('ops.sweep')}) in ${result.seconds.toFixed(0)}s`,
    `grants ${n('grants')}, renewals ${n('events.renewed')} (${n('mode_switches')} switching shared/exclusive in place), conflicts ${n('conflicts')}, releases ${n('events.released') + n('events.force_released')}, expiries ${n('events.expired')}, busy ${n('busy')}`,
    `faults: kills ${n('kills')} (${n('killed_after_commit')} after commit), stops ${n('stops')}${c.outage === undefined ? '' : `, ${n('outage')} calls during the outage (${n('outage_unavailable')} unavailable, ${n('outage_busy')} busy)`}; check visibility verified ${n('visibility_checked')} times`,
    `violations ${n('violations')}`,
  ].join('\n');
}
