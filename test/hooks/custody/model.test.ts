// Custody's model-based test (issue #34, "Tests that must exist"): random interleavings of a holder's
// tool edits and shell writes, a person's saves outside any hook, another session's commands (normal, whose
// before hook failed open, killed, backgrounded with a late write), `git gc --prune=now`, a held file's
// parent swapped for a symlink, a held file replaced by a directory, run against a real git repository, real
// files and the real SQLite database in its git dir, through `runHook` in-process: the very function the
// bin's hook entry calls. The model follows docs/custody-restore.md; after every step:
//   (1) every content ic saw in a held file, or overwrote there, is in git's object store and its id is named
//       by an event's detail, a custody ref or HEAD (checked after `git gc --prune=now` at gc steps and at the
//       end);
//   (2) no file nobody holds is ever written by ic: its bytes are what the model last wrote;
//   (3) a held file holds what the documented behaviour says: the holder's own writes are never reverted
//       (a foreign write by a normal command goes back to the holder's latest content; one the docs leave in
//       place, unverified, refused or late, stays, and the holder's content before it stays recoverable).
// fast-check prints the seed and the shrunk steps of a failure; FUZZ_SEED replays a seed (CI sets one: .ci/run),
// and FUZZ_PATH with it the failing run alone (its "path"). Writes follow hooks at once, as a person's save can:
// file times lag the system clock by up to a tick, so no order of theirs may be taken from times alone.
// CUSTODY_MODEL_RUNS raises the number of runs (20 by default: about 25 s on a loaded 2-core machine).
// Not modelled: several holders, glob locks, Codex payloads, a holder's own open command or edit under way
// while another writes (the "left" / "editing" cases), the fast path (src/hooks/fast/), linked worktrees.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startDeadline } from '../../../src/store/deadline';
import { runHook, type HookName } from '../../../src/hooks/run';
import { cleanEnv, makeTempRepo, type TempRepo } from '../../support/cli';
import { onPostgres } from '../../support/engine';
import Database from 'better-sqlite3';

const RUNS = Number(process.env.CUSTODY_MODEL_RUNS ?? 20);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const MAX_STEPS = 16;
const HOOK_BUDGET_MS = 5_000;

const A = 'sess-holder';
const B = 'sess-other';
const HELD = ['src/a.txt', 'src/b.txt'] as const;
// alt/ mirrors src/: a symlink src -> alt would make a write to src/a.txt land on alt/a.txt.
const UNHELD = ['u.txt', 'alt/a.txt', 'alt/b.txt'] as const;
type Held = (typeof HELD)[number];
type Unheld = (typeof UNHELD)[number];

const blobOf = (text: string) =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0`)
    .update(text)
    .digest('hex');

// The system under test, and what the model expects of it.
class World {
  readonly env: NodeJS.ProcessEnv;
  /** What each held file holds per the documented behaviour. */
  disk = new Map<Held, string>();
  /** The holder's latest content as custody records it (what a restore puts back). */
  record = new Map<Held, string>();
  /** What each unheld file holds: only the model writes them. */
  unheld = new Map<Unheld, string>();
  /** B's commands whose before hook ran and whose after hook has not (killed): open until B's turn ends. */
  open = new Map<string, Map<Held, string>>();
  /** Contents that must stay recoverable (invariant 1). */
  mustKeep = new Set<string>();
  calls = 0;
  log: string[] = [];

  constructor(readonly repo: TempRepo) {
    this.env = cleanEnv({ CLAUDE_PROJECT_DIR: repo.dir }) as NodeJS.ProcessEnv;
  }

  path = (rel: string) => join(this.repo.dir, rel);
  git = (...args: string[]) => execFileSync('git', ['-C', this.repo.dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  read(rel: string): string | undefined {
    try {
      const st = lstatSync(this.path(rel));
      return st.isFile() ? readFileSync(this.path(rel), 'utf8') : `<${st.isDirectory() ? 'dir' : 'link'}>`;
    } catch {
      return undefined;
    }
  }

  write(rel: string, text: string): void {
    mkdirSync(dirname(this.path(rel)), { recursive: true });
    writeFileSync(this.path(rel), text);
  }

  // One hook call, as the bin makes it; what ic changed in a held file while it ran must stay recoverable.
  async hook(name: HookName, session: string, fields: Record<string, unknown>): Promise<string> {
    const before = HELD.map((f) => this.read(f));
    const input = JSON.stringify({ session_id: session, transcript_path: '/dev/null', cwd: this.repo.dir, ...fields });
    // The bin counts the hook's budget from its own process start; in-process, from this call (the default 5 s).
    const result = await runHook(name, { text: input }, this.env, this.repo.dir, startDeadline(HOOK_BUDGET_MS, { now: Date.now, elapsedMs: 0 }));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('"deny"');
    expect(result.stdout).not.toContain('hook failed');
    HELD.forEach((f, i) => {
      const after = this.read(f);
      if (before[i] !== undefined && after !== before[i] && !before[i]!.startsWith('<')) this.mustKeep.add(before[i]!);
    });
    return result.stdout;
  }

  // What a B before hook snapshots is kept (docs: "every blob custody records (…a command's snapshot) … is
  // pinned"); with no command open, what the file holds becomes the holder's newest content.
  async preShellB(callId: string, command: string): Promise<Map<Held, string>> {
    await this.hook('claude-pre-shell', B, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: callId });
    const snapshot = new Map<Held, string>();
    for (const f of HELD) {
      const text = this.disk.get(f)!;
      snapshot.set(f, text);
      this.mustKeep.add(text);
      if (this.open.size === 0) this.record.set(f, text);
    }
    return snapshot;
  }

  // B's after hook with its before hook's snapshot: a held file the command changed goes back to the
  // holder's latest content (the record), unless it already holds it.
  async postShellB(callId: string, command: string, snapshot: Map<Held, string> | undefined, response: Record<string, unknown> = {}): Promise<string> {
    const out = await this.hook('claude-post-tool', B, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: callId, tool_response: { stdout: '', ...response } });
    if (snapshot) for (const f of HELD) if (this.disk.get(f) !== snapshot.get(f)) this.disk.set(f, this.record.get(f)!);
    return out;
  }

  events(type?: string): any[] {
    const db = new Database(this.repo.db, { readonly: true });
    try {
      const rows = db.prepare('SELECT type, pattern, reason, detail FROM events ORDER BY id').all() as { type: string; pattern: string; reason: string | null; detail: string | null }[];
      return rows.filter((row) => type === undefined || row.type === type).map((row) => ({ ...row, detail: row.detail ? JSON.parse(row.detail) : {} }));
    } finally {
      db.close();
    }
  }

  // Invariants (2) and (3): every file's bytes are what the model says.
  checkDisk(): void {
    for (const f of UNHELD) expect(this.read(f), `unheld ${f}`).toBe(this.unheld.get(f));
    for (const f of HELD) expect(this.read(f), `held ${f}`).toBe(this.disk.get(f));
  }

  // Invariant (1), after a `git gc --prune=now`: each content to keep is in the object store, and its id is
  // named where a person finds it (an event's detail, a custody ref, HEAD).
  checkKept(): void {
    this.git('gc', '--prune=now', '--quiet');
    const named = new Set<string>();
    for (const event of this.events()) for (const value of Object.values(event.detail)) if (typeof value === 'string' && /^[0-9a-f]{40}$/.test(value)) named.add(value);
    for (const line of this.git('for-each-ref', '--format=%(objectname)', 'refs/ic/custody/').split('\n')) if (line) named.add(line);
    for (const line of this.git('ls-tree', '-r', 'HEAD').split('\n')) if (line) named.add(line.split(/\s+/)[2]!);
    for (const text of this.mustKeep) {
      const blob = blobOf(text);
      expect(named.has(blob), `the id of ${JSON.stringify(text)} is named by an event, a custody ref or HEAD`).toBe(true);
      expect(this.git('cat-file', '-p', blob), `git cat-file -p ${blob}`).toBe(text);
    }
  }
}

type Step = { toString(): string; run(w: World): void | Promise<void> };
const step = (label: string, run: (w: World) => void | Promise<void>): Step => ({ toString: () => label, run });

const text = (who: string) => fc.integer({ min: 0, max: 9999 }).map((n) => `${who} ${n}\n`);
const held = fc.constantFrom<Held>(...HELD);
const unheldFile = fc.constantFrom<Unheld>(...UNHELD);
const writes = fc.record({ held: fc.uniqueArray(held, { maxLength: 2 }), unheld: fc.uniqueArray(unheldFile, { maxLength: 1 }), n: fc.integer({ min: 0, max: 9999 }) });

let callSeq = 0;
const nextCall = (kind: string) => `b-${kind}-${++callSeq}`;

// B's command writes: held files (foreign writes) and unheld ones (B's own business).
function bWrites(w: World, plan: { held: Held[]; unheld: Unheld[]; n: number }, tag: string): void {
  for (const f of plan.held) {
    const content = `B ${tag} ${plan.n} ${f}\n`;
    w.write(f, content);
    w.disk.set(f, content);
  }
  for (const f of plan.unheld) {
    const content = `B ${tag} ${plan.n} ${f}\n`;
    w.write(f, content);
    w.unheld.set(f, content);
  }
}

const COMMAND = 'python3 job.py'; // a script the before hook's reader cannot see through: only the after hook can judge it

const steps: fc.Arbitrary<Step>[] = [
  // A's Write tool: the pre-edit hook reserves (and marks), the tool writes, the post-tool hook records.
  fc.tuple(held, text('A edit')).map(([f, content]) =>
    step(`A edits ${f}`, async (w) => {
      const toolInput = { file_path: w.path(f), content };
      await w.hook('claude-pre-edit', A, { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: toolInput, tool_use_id: `a-${++callSeq}` });
      w.write(f, content);
      w.disk.set(f, content);
      await w.hook('claude-post-tool', A, { hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: toolInput, tool_use_id: `a-${callSeq}`, tool_response: {} });
      w.record.set(f, content);
    }),
  ),
  // A's own shell command writes its file: its after hook records every held file of A's that changed.
  fc.tuple(held, text('A shell')).map(([f, content]) =>
    step(`A's shell writes ${f}`, async (w) => {
      const id = `a-${++callSeq}`;
      await w.hook('claude-pre-shell', A, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: COMMAND }, tool_use_id: id });
      w.write(f, content);
      w.disk.set(f, content);
      await w.hook('claude-post-tool', A, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: COMMAND }, tool_use_id: id, tool_response: { stdout: '' } });
      for (const g of HELD) w.record.set(g, w.disk.get(g)!);
      for (const g of HELD) w.mustKeep.add(w.disk.get(g)!);
    }),
  ),
  // A person saves in an editor: no hook at all.
  fc.tuple(held, text('person')).map(([f, content]) =>
    step(`person saves ${f}`, (w) => {
      w.write(f, content);
      w.disk.set(f, content);
    }),
  ),
  // A person edits a file nobody holds.
  fc.tuple(unheldFile, text('person')).map(([f, content]) =>
    step(`person saves unheld ${f}`, (w) => {
      w.write(f, content);
      w.unheld.set(f, content);
    }),
  ),
  // B's normal command: before hook, writes, after hook.
  fc.tuple(writes, fc.boolean()).map(([plan, gc]) =>
    step(`B runs ${gc ? 'git gc --prune=now && ' : ''}a command writing ${JSON.stringify(plan)}`, async (w) => {
      const id = nextCall('normal');
      const snapshot = await w.preShellB(id, COMMAND);
      if (gc) w.git('gc', '--prune=now', '--quiet');
      bWrites(w, plan, id);
      await w.postShellB(id, COMMAND, snapshot);
    }),
  ),
  // B's command whose before hook failed open: no snapshot, so nothing is put back (`unverified`).
  writes.map((plan) =>
    step(`B runs a command (before hook failed open) writing ${JSON.stringify(plan)}`, async (w) => {
      const id = nextCall('failopen');
      bWrites(w, plan, id);
      await w.postShellB(id, COMMAND, undefined);
      const unverified = w
        .events('unverified')
        .filter((e) => e.detail.call_id === id)
        .map((e) => e.pattern);
      for (const f of plan.held) if (w.disk.get(f) !== w.record.get(f)) expect(unverified).toContain(f);
    }),
  ),
  // The same, from Claude, whose after hook says how long the command ran (`duration_ms`, here ten minutes:
  // every change in this run is within it): a held file that differs from the holder's record and changed
  // during the command is put back to the record (docs: "the holder's record and the command's own timing
  // both show it"), a person's save not yet recorded included (a documented limit); what was there is kept.
  writes.map((plan) =>
    step(`B runs a command (before hook failed open, duration_ms given) writing ${JSON.stringify(plan)}`, async (w) => {
      const id = nextCall('failopen-timed');
      bWrites(w, plan, id);
      await w.hook('claude-post-tool', B, {
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: COMMAND },
        tool_use_id: id,
        tool_response: { stdout: '' },
        duration_ms: 600_000,
      });
      for (const f of HELD) w.disk.set(f, w.record.get(f)!);
    }),
  ),
  // B's command killed after its writes: the before hook ran, the after hook never comes; open until B's turn ends.
  writes.map((plan) =>
    step(`B runs a command that is killed after writing ${JSON.stringify(plan)}`, async (w) => {
      const id = nextCall('killed');
      const snapshot = await w.preShellB(id, COMMAND);
      bWrites(w, plan, id);
      w.open.set(id, snapshot);
    }),
  ),
  // The late after hook of a killed command (a Codex command past its yield): restores against its snapshot.
  fc.nat().map((pick) =>
    step(`B's oldest open command gets its after hook late (${pick})`, async (w) => {
      const ids = [...w.open.keys()];
      if (ids.length === 0) return;
      const id = ids[pick % ids.length]!;
      const snapshot = w.open.get(id)!;
      w.open.delete(id);
      await w.postShellB(id, COMMAND, snapshot);
    }),
  ),
  // B's turn ends (Stop): its commands that never got their after hook stop counting.
  fc.constant(
    step('B’s turn ends', async (w) => {
      await w.hook('claude-turn-end', B, { hook_event_name: 'Stop' });
      w.open.clear();
    }),
  ),
  // B's command moved to the background by the client: after hook now, then its job writes late (no hook):
  // reported at the next hook, never put back.
  fc.tuple(writes, writes).map(([during, late]) =>
    step(`B's backgrounded command writes ${JSON.stringify(during)}, then late ${JSON.stringify(late)}`, async (w) => {
      const id = nextCall('bg');
      const snapshot = await w.preShellB(id, COMMAND);
      bWrites(w, during, id);
      await w.postShellB(id, COMMAND, snapshot, { backgroundTaskId: id });
      for (const f of late.held) w.mustKeep.add(w.disk.get(f)!); // watched: the content before the late write is stored
      bWrites(w, late, `${id}-late`);
      // The next hook of any session (here: A's prompt) notices the late write and tells A.
      const heldLate = late.held.filter((f, i, all) => all.indexOf(f) === i);
      const out = await w.hook('claude-prompt', A, { hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
      const told = out === '' ? '' : String(JSON.parse(out).hookSpecificOutput?.additionalContext ?? '');
      for (const f of heldLate) expect(told, `A is told of the late write to ${f}`).toContain(`${JSON.stringify(f)}, which you`);
    }),
  ),
  // git gc --prune=now, outside any hook.
  fc.constant(
    step('git gc --prune=now', (w) => {
      w.git('gc', '--prune=now', '--quiet');
      w.checkKept();
    }),
  ),
  // B replaces src/ (held files' parent) with a symlink to alt/ (unheld files): the restore is refused,
  // nothing is written through the link; then the person repairs with the documented recovery line.
  fc.constant(
    step('B replaces src/ with a symlink to alt/', async (w) => {
      const id = nextCall('symlink');
      const snapshot = await w.preShellB(id, COMMAND);
      rmSync(w.path('src'), { recursive: true, force: true });
      symlinkSync('alt', w.path('src'));
      await w.hook('claude-post-tool', B, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: COMMAND }, tool_use_id: id, tool_response: { stdout: '' } });
      expect(w.read('src')).toBe('<link>');
      for (const f of UNHELD) expect(w.read(f), `unheld ${f} through the link`).toBe(w.unheld.get(f));
      repair(w, id, snapshot, 'src', 'symlink');
    }),
  ),
  // B replaces a held file with a directory: reported as such, nothing inside touched; then repaired.
  held.map((f) =>
    step(`B replaces ${f} with a directory`, async (w) => {
      const id = nextCall('dir');
      const snapshot = await w.preShellB(id, COMMAND);
      rmSync(w.path(f), { force: true });
      mkdirSync(w.path(f));
      writeFileSync(join(w.path(f), 'inner'), 'B inner\n');
      await w.hook('claude-post-tool', B, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: COMMAND }, tool_use_id: id, tool_response: { stdout: '' } });
      expect(readFileSync(join(w.path(f), 'inner'), 'utf8')).toBe('B inner\n');
      repair(w, id, snapshot, f, 'directory');
    }),
  ),
];

// After a refused restore: a `restore_refused` event per damaged held file names the holder's content, and
// the person puts it back with the documented line (`git cat-file blob BLOB > FILE`) once the path is a
// plain file again. Only the files B's command damaged are repaired; the others keep what they held.
function repair(w: World, callId: string, snapshot: Map<Held, string>, damaged: string, reason: 'symlink' | 'directory'): void {
  const refused = w.events('restore_refused').filter((e) => e.detail.call_id === callId);
  rmSync(w.path(damaged), { recursive: true, force: true });
  mkdirSync(w.path('src'), { recursive: true });
  for (const f of HELD) {
    if (!(f === damaged || f.startsWith(`${damaged}/`))) continue;
    const event = refused.find((e) => e.pattern === f);
    expect(event, `restore_refused for ${f}`).toBeDefined();
    expect(event.reason).toBe(reason);
    expect(event.detail.blob).toBe(blobOf(w.record.get(f)!));
    writeFileSync(w.path(f), execFileSync('git', ['-C', w.repo.dir, 'cat-file', 'blob', event.detail.blob]));
    w.disk.set(f, w.record.get(f)!);
    expect(snapshot.has(f)).toBe(true);
  }
}

describe.skipIf(onPostgres)('custody model: random interleavings never lose a byte (issue #34)', () => {
  it(
    'every content stays recoverable, no unheld file is written by ic, the holder’s writes are never reverted',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.oneof(...steps), { minLength: 1, maxLength: MAX_STEPS }), async (run) => {
          const repo = makeTempRepo('ic-custody-model-');
          try {
            const w = new World(repo);
            for (const f of UNHELD) {
              w.write(f, `${f} committed\n`);
              w.unheld.set(f, `${f} committed\n`);
            }
            for (const f of HELD) w.write(f, `${f} committed\n`);
            w.git('add', '-A');
            w.git('commit', '-qm', 'seed');
            for (const f of UNHELD) {
              w.write(f, `${f} uncommitted work\n`); // a person's work nobody holds, not in git
              w.unheld.set(f, `${f} uncommitted work\n`);
            }
            // A holds its files as Claude's Write reserves them.
            for (const f of HELD) {
              const content = `A first ${f}\n`;
              const toolInput = { file_path: w.path(f), content };
              await w.hook('claude-pre-edit', A, { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: toolInput, tool_use_id: `a-init-${f}` });
              w.write(f, content);
              await w.hook('claude-post-tool', A, { hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: toolInput, tool_use_id: `a-init-${f}`, tool_response: {} });
              w.disk.set(f, content);
              w.record.set(f, content);
            }
            for (const s of run) {
              w.log.push(String(s));
              await s.run(w);
              w.checkDisk();
            }
            w.checkKept();
          } finally {
            repo.cleanup();
          }
        }),
        { numRuns: RUNS, seed: SEED, ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH, endOnFailure: true } : {}) },
      );
    },
    Math.max(120_000, RUNS * 15_000),
  ); // runs of a few steps take about a second each, and five times that beside a second copy of the suite
});
