// Crash safety: SIGKILL real `ic` writers at random moments (0..maxDelay ms after spawn: start-up, open,
// migration, inside the transaction, at commit, while printing), then prove the database is whole:
// integrity_check is ok, every lock row is well-formed and has its events, and every grant a process
// printed before it died is in the database. Used by `npm run crash` and test/reliability/crash.test.ts.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { seeded } from '../support/random';

export interface CrashOptions {
  bin: string;
  kills: number;
  seed: number;
  /** Victims running (and killed) at once on the same database. */
  parallel: number;
  /** Kill delays are drawn from 0..maxDelayMs; 0 = measure how long a writer lives here and use 1.2x that. */
  maxDelayMs: number;
  /** Every this many kills, kill a writer that is creating a brand-new database. */
  freshEvery: number;
  log?: (line: string) => void;
}

export interface CrashResult {
  kills: number;
  spawned: number;
  finishedFirst: number;
  verifications: number;
  maxDelayMs: number;
  /** Killed reserves whose grant had committed (the kill landed between commit and exit). */
  killedAfterCommit: number;
  freshDatabases: number;
  corrupt: number;
  lostGrants: number;
  problems: string[];
  seconds: number;
}

export const DEFAULT_CRASH: Omit<CrashOptions, 'bin'> = { kills: 500, seed: 1, parallel: 2, maxDelayMs: 0, freshEvery: 25 };

interface Outcome {
  killed: boolean;
  exitCode: number | null;
  stdout: string;
}

// Spawns one writer and SIGKILLs it after `delayMs` unless it finished first.
function runAndKill(bin: string, args: string[], env: Record<string, string | undefined>, cwd: string, delayMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let exited = false;
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    const timer = setTimeout(() => {
      if (exited) return;
      killed = child.kill('SIGKILL');
    }, delayMs);
    child.on('exit', () => (exited = true));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ killed: killed && signal === 'SIGKILL', exitCode: code, stdout });
    });
  });
}

// The locks a reserve or renew printed; a document cut off by the kill promised nothing.
function parseLocks(stdout: string): { id: string; token: number }[] {
  try {
    const json = JSON.parse(stdout);
    return json?.ok && Array.isArray(json.locks) ? json.locks : [];
  } catch {
    return [];
  }
}

const ID = /^[0-9a-z]{8}$/;
const isInt = (value: unknown) => typeof value === 'number' && Number.isInteger(value);

// Everything a killed writer could have broken, checked on a fresh connection (which runs WAL recovery).
export function verifyDatabase(path: string, promised: Map<string, number>): string[] {
  const problems: string[] = [];
  if (!existsSync(path)) return promised.size ? [`${path} is gone but ${promised.size} grants were printed`] : [];
  const db = new Database(path);
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return [`integrity_check: ${String(integrity)}`];
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
    if (!tables.has('locks')) return promised.size ? [`no locks table but ${promised.size} grants were printed`] : [];
    const rows = db.prepare('SELECT * FROM locks').all() as Record<string, unknown>[];
    // A grant's token is the id of its `reserved` event, so that event is found by both
    // (the crash jobs transfer nothing; a transfer would give the lock its `transferred` event's id).
    const reserved = new Map((db.prepare("SELECT id, lock_id FROM events WHERE type = 'reserved'").all() as { id: number; lock_id: string }[]).map((e) => [e.lock_id, e.id]));
    const releasedEvents = new Set((db.prepare("SELECT lock_id FROM events WHERE type IN ('released', 'force_released', 'expired')").all() as { lock_id: string }[]).map((e) => e.lock_id));
    const tokens = new Map<string, number>();
    for (const row of rows) {
      const what = `lock ${String(row.id)}`;
      if (typeof row.id !== 'string' || !ID.test(row.id)) problems.push(`${what}: bad id`);
      // The row's key is the id of the event that recorded its grant, which the crash jobs never transfer.
      if (row.seq !== row.token) problems.push(`${what}: key ${String(row.seq)} is not its grant's event id (${String(row.token)})`);
      if (!isInt(row.token) || (row.token as number) <= 0) problems.push(`${what}: bad token ${String(row.token)}`);
      if (!['file', 'named', 'claim'].includes(row.type as string)) problems.push(`${what}: bad type ${String(row.type)}`);
      if (!['exclusive', 'shared'].includes(row.mode as string)) problems.push(`${what}: bad mode ${String(row.mode)}`);
      for (const column of ['scope', 'pattern', 'owner']) if (typeof row[column] !== 'string' || row[column] === '') problems.push(`${what}: bad ${column}`);
      if (typeof row.base !== 'string') problems.push(`${what}: bad base`);
      for (const column of ['created_at', 'expires_at', 'ttl_ms']) if (!isInt(row[column])) problems.push(`${what}: bad ${column}`);
      if ((row.expires_at as number) <= (row.created_at as number) || (row.ttl_ms as number) <= 0) problems.push(`${what}: expires before it was created`);
      if ((row.released_at === null) !== (row.release_reason === null)) problems.push(`${what}: released_at and release_reason disagree`);
      if (row.released_at !== null && !isInt(row.released_at)) problems.push(`${what}: bad released_at`);
      if (!reserved.has(row.id as string)) problems.push(`${what}: no reserved event (half a transaction)`);
      else if (reserved.get(row.id as string) !== row.token) problems.push(`${what}: token ${String(row.token)} is not the id of its reserved event (${reserved.get(row.id as string)})`);
      if (row.released_at !== null && !releasedEvents.has(row.id as string)) problems.push(`${what}: released without an event (half a transaction)`);
      tokens.set(row.id as string, row.token as number);
    }
    for (const [id, token] of promised) {
      if (!tokens.has(id)) problems.push(`LOST GRANT: ${id} (token ${token}) was printed as granted but is not in the database`);
      else if (tokens.get(id) !== token) problems.push(`grant ${id} was printed with token ${token}, the database has ${tokens.get(id)}`);
    }
  } catch (error) {
    problems.push(`cannot read the database: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  return problems;
}

function committedPatterns(path: string): Set<string> {
  if (!existsSync(path)) return new Set();
  const db = new Database(path, { readonly: true });
  try {
    return new Set((db.prepare('SELECT pattern FROM locks').all() as { pattern: string }[]).map((row) => row.pattern));
  } finally {
    db.close();
  }
}

export async function runCrash(options: CrashOptions): Promise<CrashResult> {
  const log = options.log ?? (() => {});
  const random = seeded(options.seed);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-crash-')));
  execFileSync('git', ['init', '-q', dir]);
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', IC_LOCK_DELAY: '0' };
  const main = join(dir, '.git', 'ic', 'ic.db');
  mkdirSync(join(dir, '.git', 'ic')); // an explicit IC_DB's directory must exist
  const result: CrashResult = {
    kills: 0,
    spawned: 0,
    finishedFirst: 0,
    verifications: 0,
    maxDelayMs: options.maxDelayMs,
    killedAfterCommit: 0,
    freshDatabases: 0,
    corrupt: 0,
    lostGrants: 0,
    problems: [],
    seconds: 0,
  };
  const t0 = Date.now();
  if (!result.maxDelayMs) {
    // How long a writer lives on this machine now (start-up dominates; the transaction is near the end).
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const calibration = await runAndKill(options.bin, ['coord', 'reserve', `calibrate/${i}`, '--owner', 'o0'], { ...baseEnv, IC_DB: main }, dir, 60_000);
      if (calibration.exitCode !== 0) throw new Error(`a writer failed without any kill (exit ${calibration.exitCode}): ${calibration.stdout}`);
      durations.push(Date.now() - started);
    }
    result.maxDelayMs = Math.ceil(1.2 * durations.sort((a, b) => a - b)[2]!);
  }
  const promised = new Map<string, number>();
  let serial = 0;
  let nextFresh = options.freshEvery;

  // A writer with a random job: mostly new grants (so that grants can be lost), some renewals,
  // releases, sweeps, and conflicting reserves.
  const job = (): string[] => {
    const owner = `o${Math.floor(random() * 4)}`;
    const roll = random();
    serial++;
    if (roll < 0.6) {
      const count = 1 + Math.floor(random() * 8);
      return ['coord', 'reserve', ...Array.from({ length: count }, (_, i) => `crash/${serial}/${i}.ts`), '--owner', owner, '--ttl', '1h'];
    }
    if (roll < 0.7) return ['coord', 'renew', '--owner', owner, '--ttl', '1h'];
    if (roll < 0.8) return ['coord', 'release', '--pattern', `crash/${Math.floor(random() * serial)}/0.ts`, '--owner', owner];
    if (roll < 0.9) return ['coord', 'sweep'];
    return ['coord', 'reserve', 'crash/**', '--owner', owner];
  };

  const record = (problems: string[], where: string) => {
    result.verifications++;
    if (!problems.length) return;
    if (problems.some((p) => !p.startsWith('LOST GRANT'))) result.corrupt++;
    result.lostGrants += problems.filter((p) => p.startsWith('LOST GRANT')).length;
    for (const p of problems) if (result.problems.length < 100) result.problems.push(`${where}: ${p}`);
  };

  while (result.kills < options.kills) {
    if (result.kills >= nextFresh) {
      // Kill a writer while it creates a new database (directory, schema, migration) from nothing.
      nextFresh += options.freshEvery;
      result.freshDatabases++;
      const fresh = join(dir, `fresh-${result.freshDatabases}`, 'ic.db');
      mkdirSync(dirname(fresh));
      const outcome = await runAndKill(options.bin, ['coord', 'reserve', 'a.ts', '--owner', 'o0'], { ...baseEnv, IC_DB: fresh }, dir, Math.floor(random() * result.maxDelayMs));
      result.spawned++;
      if (outcome.killed) result.kills++;
      const printed = new Map<string, number>();
      for (const lock of parseLocks(outcome.stdout)) printed.set(lock.id, lock.token);
      record(verifyDatabase(fresh, printed), `fresh database ${fresh}`);
      // Whatever state the kill left, the next writer must be able to use (or finish creating) it.
      const after = await runAndKill(options.bin, ['coord', 'reserve', 'b.ts', '--owner', 'o1'], { ...baseEnv, IC_DB: fresh }, dir, 30_000);
      if (after.exitCode !== 0) record([`a writer after the kill failed: exit ${after.exitCode} ${after.stdout.slice(0, 300)}`], fresh);
      continue;
    }
    const jobs = Array.from({ length: options.parallel }, job);
    const outcomes = await Promise.all(jobs.map((args) => runAndKill(options.bin, args, { ...baseEnv, IC_DB: main }, dir, Math.floor(random() * result.maxDelayMs))));
    const committed = committedPatterns(main);
    for (const [i, outcome] of outcomes.entries()) {
      const first = jobs[i]![2]!;
      if (outcome.killed && jobs[i]![1] === 'reserve' && first.startsWith('crash/') && committed.has(first)) result.killedAfterCommit++;
      result.spawned++;
      if (outcome.killed) result.kills++;
      else result.finishedFirst++;
      if (!outcome.killed && ![0, 1, 75].includes(outcome.exitCode ?? -1)) record([`a writer that was not killed exited ${outcome.exitCode}: ${outcome.stdout.slice(0, 300)}`], 'writer');
      // A complete JSON document on stdout means the command committed and reported: its grants must stay.
      for (const lock of parseLocks(outcome.stdout)) promised.set(lock.id, lock.token);
    }
    record(verifyDatabase(main, promised), 'main database');
    if (result.verifications % 50 === 0) {
      const list = await runAndKill(options.bin, ['coord', 'list'], { ...baseEnv, IC_DB: main }, dir, 30_000);
      if (list.exitCode !== 0) record([`ic coord list after kills exited ${list.exitCode}: ${list.stdout.slice(0, 300)}`], 'main database');
      log(`  ${result.kills} kills, ${result.corrupt} corrupt, ${result.lostGrants} lost grants, ${((Date.now() - t0) / 1000).toFixed(0)}s`);
    }
  }
  result.seconds = (Date.now() - t0) / 1000;
  if (!result.problems.length) rmSync(dir, { recursive: true, force: true });
  else result.problems.push(`databases kept in ${dir}`);
  return result;
}

export function summarizeCrash(r: CrashResult): string {
  return [
    `kills ${r.kills} (of ${r.spawned} writers spawned; ${r.finishedFirst} finished before their kill; delays 0..${r.maxDelayMs} ms), ${r.freshDatabases} of them while creating a new database`,
    `kills that landed after a reserve had committed: ${r.killedAfterCommit}`,
    `verifications ${r.verifications}: corrupt databases ${r.corrupt}, lost grants ${r.lostGrants}, in ${r.seconds.toFixed(0)}s`,
  ].join('\n');
}
