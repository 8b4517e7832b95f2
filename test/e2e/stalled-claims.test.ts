// Claims that cannot be hoarded: stalled claims shown and taken over, hand-off requests seen by the holder.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { claudeEdit } from '../hooks/fixtures';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function repoFor(): TempRepo {
  const repo = makeTempRepo('ic-stalled-');
  repos.push(repo);
  return repo;
}

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (minutes: number) => ({ IC_NOW: new Date(T0 + minutes * 60_000).toISOString() });

describe('stalled claims', () => {
  it('who and claim show a claim as stalled after 60m without activity; --take takes it over, recorded with the previous owner', async () => {
    const repo = repoFor();
    expect((await coord(repo, ['claim', 'bd-1', '--owner', 'alice', '--ttl', '4h'], { env: at(0) })).exitCode).toBe(0);
    // Active 30m ago: not stalled; --take is refused, with the way to ask.
    const early = await coord(repo, ['claim', 'bd-1', '--owner', 'bob', '--take'], { env: at(30) });
    expect(early.exitCode).toBe(1);
    expect(early.json.error.message).toMatch(/not stalled/);
    expect(early.json.error.hint).toMatch(/--ask/);
    const plain = await coord(repo, ['claim', 'bd-1', '--owner', 'bob'], { env: at(30) });
    expect(plain.json.error).toMatchObject({ code: 'CONFLICT', stalled: false });
    // A heartbeat is activity: it pushes stalling back.
    await coord(repo, ['heartbeat', '--owner', 'alice'], { env: at(50) });
    expect((await coord(repo, ['who'], { env: at(100) })).json.owners[0]).toMatchObject({ owner: 'alice', stalled_claims: [] });
    const who = await coord(repo, ['who'], { env: at(111) });
    expect(who.json.owners[0]).toMatchObject({ owner: 'alice', stalled_claims: ['bd-1'] });
    const refused = await coord(repo, ['claim', 'bd-1', '--owner', 'bob'], { env: at(111) });
    expect(refused.json.error.message).toMatch(/stalled .*take it over with --take/);
    const taken = await coord(repo, ['claim', 'bd-1', '--owner', 'bob', '--take'], { env: at(112) });
    expect(taken.exitCode).toBe(0);
    expect(taken.json).toMatchObject({ taken_over_from: 'alice', locks: [{ pattern: 'bd-1', owner: 'bob' }] });
    const events = (await coord(repo, ['events'])).json.events;
    const event = events.find((e: any) => e.type === 'taken_over');
    expect(event).toMatchObject({ owner: 'bob', pattern: 'bd-1', detail: { previous_owner: 'alice' } });
    expect(taken.json.locks[0].token).toBe(event.id); // a new fencing token: alice's old one stops verifying
    expect((await coord(repo, ['verify', taken.json.locks[0].id, String(taken.json.locks[0].token)], { env: at(113) })).exitCode).toBe(0);
    // The repository's setting changes the threshold (IC_STALL_AFTER is ignored: test/hardening/poisoned-inputs.test.ts).
    await coord(repo, ['claim', 'bd-2', '--owner', 'carol'], { env: at(200) });
    expect((await ic(repo, ['config', 'stall-after', '5m'], { env: at(201) })).exitCode).toBe(0);
    expect((await coord(repo, ['claim', 'bd-2', '--owner', 'bob', '--take'], { env: at(206) })).exitCode).toBe(0);
  });

  it('--ask records a hand-off request that the holder sees in its next edit hook and its status line, and answers with transfer', async () => {
    const repo = repoFor();
    await coord(repo, ['claim', 'bd-3', '--owner', 'claude-holder']);
    const asked = await coord(repo, ['claim', 'bd-3', '--owner', 'bob', '--ask', '--reason', 'I have the fix']);
    expect(asked.exitCode).toBe(0);
    expect(asked.json).toMatchObject({ granted: false, handoff_requested: { item: 'bd-3', holder: 'claude-holder' }, stalled: false });
    writeFileSync(join(repo.dir, 'x.ts'), '');
    const hook = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, 'holder', join(repo.dir, 'x.ts')) });
    // Told to the holder's model (additionalContext), once (docs/sessions.md, "Hand-off").
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toMatch(
      /bob asks you \(claude-holder\) to hand over work item "bd-3": "I have the fix".*`coord unclaim bd-3`.*`coord transfer --from claude-holder --to bob --pattern bd-3`/,
    );
    const status = await ic(repo, ['coord', 'statusline'], { input: JSON.stringify({ session_id: 'holder', workspace: { current_dir: repo.dir } }) });
    expect(status.stdout).toMatch(/bob asks for bd-3/);
    expect((await coord(repo, ['who'])).json.owners.find((o: any) => o.owner === 'claude-holder').handoff_requests).toMatchObject([{ item: 'bd-3', by: 'bob' }]);
    expect((await coord(repo, ['transfer', '--from', 'claude-holder', '--to', 'bob', '--pattern', 'bd-3', '--owner', 'claude-holder'])).exitCode).toBe(0);
    // Answered: the request is no longer open for anyone.
    const after = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, 'holder', join(repo.dir, 'x.ts')) });
    expect(after.stdout).toBe('');
    expect((await coord(repo, ['who'])).json.owners.find((o: any) => o.owner === 'bob').handoff_requests).toEqual([]);
    // Asking for a free item just claims it.
    expect((await coord(repo, ['claim', 'bd-9', '--owner', 'bob', '--ask'])).json).toMatchObject({ ok: true, locks: [{ pattern: 'bd-9', owner: 'bob' }] });
  });
});
