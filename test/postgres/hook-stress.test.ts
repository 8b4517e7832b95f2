// Agents' hooks in two projects on one server under faults (issue #38, item 5): fake agent clients take
// conflicting files through their edit hooks (the session step's scoped writes, the reservation), some are
// killed with SIGKILL with their hook mid-call (their locks are then released by the next hook on the host,
// in the dead session's scopes only), and the server restarts midway. Afterwards no file was ever held by two
// owners at once: neither in the events replayed in order, nor in the lock rows' own intervals.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli';
import { startFakeClient, type FakeClient } from '../support/fake-client';
import { seeded } from '../support/random';
import { doubleGrants } from './grants';
import { freshSchemaUrl, keyedProject, ownServer, serverDir, withConnection } from './support';

const SEED = Number(process.env.STRESS_SEED ?? 38_005);
const PROJECTS = ['stress-a', 'stress-b'];
const CLIENTS_PER_PROJECT = 4;
const HOOKS_PER_CLIENT = 6;
const FILES = ['src/a.ts', 'src/b.ts', 'src/c.ts'];

let root: string;
let database: { url: string }; // on the file's own server: it goes with it

const project = (name: string): string => keyedProject(root, name);

ownServer(); // it restarts it mid-run

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ic-hook-stress-')));
  database = freshSchemaUrl();
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

// `pg_ctl restart -m fast` in a process of its own, so the hooks go on meanwhile (as stress.test.ts).
function restartServer(): Promise<void> {
  const script = `import { restartPostgres } from ${JSON.stringify(`${REPO_ROOT}/scripts/postgres-server.mjs`)}; restartPostgres(${JSON.stringify(serverDir())});`;
  return new Promise((resolve, reject) => execFile(process.execPath, ['--input-type=module', '-e', script], (error) => (error ? reject(error) : resolve())));
}

// The process and all its descendants (a client's `sh -c` and the hook under it), deepest first.
function tree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone already
  }
  return [...children.flatMap(tree), pid];
}

function killTree(client: FakeClient): void {
  for (const pid of tree(client.pid))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
}

// One lock row's live interval: from its grant to its release, else its expiry.
interface LockSpan {
  owner: string;
  pattern: string;
  created_at: number;
  end: number;
}

// Pairs of one file's locks of two owners whose live intervals overlap.
async function overlappingRows(scope: string): Promise<LockSpan[][]> {
  const rows = await withConnection(database.url, (db) =>
    db.all<LockSpan>('SELECT owner, pattern, created_at, coalesce(released_at, expires_at) AS "end" FROM locks WHERE scope = ? AND type = \'file\' ORDER BY created_at', [scope]),
  );
  return rows.flatMap((a, i) =>
    rows
      .slice(i + 1)
      .filter((b) => b.pattern === a.pattern && b.owner !== a.owner && b.created_at < a.end && a.created_at < b.end)
      .map((b) => [a, b]),
  );
}

describe('hooks of two projects under SIGKILL and a server restart', () => {
  it(`never grant one file to two sessions at once (seed ${SEED})`, async () => {
    const random = seeded(SEED);
    const dirs = PROJECTS.map(project);
    const env = { IC_DB: database.url, IC_HOOK_TIMEOUT: '30s' };
    let sessions = 0;
    const start = (p: number) => startFakeClient(dirs[p]!, env).then((client) => ({ client, session: `p${p}-s${sessions++}`, alive: true }));
    const slots = await Promise.all(Array.from({ length: PROJECTS.length * CLIENTS_PER_PROJECT }, (_, i) => start(i % PROJECTS.length)));
    // Which hook of which client is killed, and when the server restarts: by the seed.
    const kills = new Set(Array.from({ length: 5 }, () => Math.floor(random() * slots.length * HOOKS_PER_CLIENT)));
    const restartAt = Math.floor((slots.length * HOOKS_PER_CLIENT) / 2);
    const plan = Array.from({ length: slots.length * HOOKS_PER_CLIENT }, () => FILES[Math.floor(random() * FILES.length)]!);
    let step = 0;
    let killed = 0;
    let restarts: Promise<void> | undefined;
    const answers: string[] = [];

    await Promise.all(
      slots.map(async (slot, index) => {
        const p = index % PROJECTS.length;
        for (let n = 0; n < HOOKS_PER_CLIENT; n++) {
          const at = step++;
          if (at === restartAt) restarts = restartServer();
          const file = plan[at]!;
          const payload = {
            session_id: slot.session,
            hook_event_name: 'PreToolUse',
            tool_name: 'Edit',
            tool_use_id: `t${at}`,
            cwd: dirs[p],
            tool_input: { file_path: join(dirs[p]!, file), old_string: '', new_string: 'x' },
          };
          const call = await slot.client.hook('claude-pre-edit', payload);
          if (kills.has(at)) {
            // Mid-call: once the hook process exists under the client, SIGKILL the whole tree; a new agent takes the slot.
            for (let tries = 0; tries < 200 && tree(slot.client.pid).length < 3; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
            killTree(slot.client);
            killed++;
            Object.assign(slot, await start(p));
            continue;
          }
          answers.push((await call).stdout);
        }
      }),
    );
    await restarts;
    for (const slot of slots) await slot.client.kill('SIGTERM');

    expect(killed).toBeGreaterThan(0);
    const denied = answers.filter((answer) => answer.includes('"deny"')).length;
    const granted = answers.filter((answer) => answer.trim() === '').length;
    expect(denied).toBeGreaterThan(0); // the agents met each other's files
    expect(granted).toBeGreaterThan(0);
    const gone = await withConnection(database.url, async (db) => (await db.get<{ n: number }>("SELECT count(*)::int AS n FROM locks WHERE release_reason = 'client_gone'"))!.n);
    console.log(
      `hook stress seed ${SEED}: ${answers.length} answered (${granted} granted, ${denied} denied, the rest failed open), ${killed} killed mid-call, ${gone} locks released as their client was gone`,
    );
    for (const scope of PROJECTS) {
      expect(await overlappingRows(scope)).toEqual([]);
      await withConnection(database.url, async (db) => expect(await doubleGrants(db, scope)).toMatchObject({ replayed: 0, live: 0 }));
    }
  }, 115_000);
});
