import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, IC_BIN, makeTempRepo, type TempRepo } from '../support/cli';
import { startFakeClient, type FakeClient } from '../support/fake-client';

// `ic whoami`: which owner a process acts as and why, and a session that ended lending its identity to nobody.

const repos: TempRepo[] = [];
const clients: FakeClient[] = [];
afterEach(async () => {
  while (clients.length) await clients.pop()!.kill('SIGKILL');
  while (repos.length) repos.pop()!.cleanup();
});

function repo(): TempRepo {
  const r = makeTempRepo('ic-whoami-');
  repos.push(r);
  writeFileSync(join(r.dir, 'a.txt'), 'a\n');
  return r;
}

async function client(r: TempRepo): Promise<FakeClient> {
  const started = await startFakeClient(r.dir);
  clients.push(started);
  return started;
}

const edit = (r: TempRepo, session: string) => ({ session_id: session, cwd: r.dir, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(r.dir, 'a.txt') } });
const end = (r: TempRepo, session: string) => ({ session_id: session, cwd: r.dir, hook_event_name: 'SessionEnd', reason: 'exit' });

describe('ic whoami', () => {
  it('says the owner and its source: --owner, $IC_OWNER, or none (exit 1, as write commands would refuse)', async () => {
    const r = repo();
    const none = await ic(r, ['whoami']);
    expect(none.exitCode).toBe(1);
    expect(none.json).toMatchObject({ ok: true, owner: null, source: 'none' });
    expect((await ic(r, ['whoami'], { env: { IC_OWNER: 'alice' } })).json).toMatchObject({ owner: 'alice', source: 'env' });
    const flag = await ic(r, ['whoami', '--owner', 'bob'], { env: { IC_OWNER: 'alice' } });
    expect(flag.exitCode).toBe(0);
    expect(flag.json).toMatchObject({ owner: 'bob', source: 'flag' });
    const table = await ic(r, ['whoami', '--format', 'table'], { env: { IC_OWNER: 'alice' } });
    expect(table.stdout).toBe('alice (from $IC_OWNER)');
    expect((await ic(r, ['whoami', '--owner', 'a\u0007b'])).exitCode).toBe(65);
  });

  it("a process under an agent session acts as it; after the session's end hook it is nobody again", async () => {
    const r = repo();
    const agent = await client(r);
    expect((await agent.hook('claude-pre-edit', edit(r, 's2'))).code).toBe(0);
    const inside = await agent.run(`'${IC_BIN}' whoami --json`);
    expect(inside.code).toBe(0);
    expect(inside.json).toMatchObject({ owner: 'claude-s2', source: 'session', session: { owner: 'claude-s2', agent: 'claude', pid: agent.pid } });
    // An explicit other IC_OWNER stays explicit, and whoami says which session it overrides.
    const other = await agent.run(`'${IC_BIN}' whoami --json`, { env: { IC_OWNER: 'alice' } });
    expect(other.json).toMatchObject({ owner: 'alice', source: 'env', session: { owner: 'claude-s2' } });

    expect((await agent.hook('claude-session-end', end(r, 's2'))).code).toBe(0);
    const after = await agent.run(`'${IC_BIN}' whoami --json`);
    expect(after.code).toBe(1);
    expect(after.json).toMatchObject({ owner: null, source: 'none' });
    // And so a write from that process needs an owner again, instead of acting as the ended session.
    const write = await agent.run(`'${IC_BIN}' coord reserve a.txt`);
    expect(write.code).toBe(64);
    expect((await coord(r, ['list', '--active'])).json.locks).toEqual([]);
  });
});
