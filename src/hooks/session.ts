import { createContext, readTransaction } from '../coord/context';
import { hookClient } from '../coord/client-process';
import { forgetSession } from '../coord/sessions';
import { release } from '../coord/release';
import { transfer } from '../coord/transfer';
import { listLocks } from '../store/locks';

// Releases every lock and claim the session and its subagents hold in the project (SessionEnd; never on
// Stop, which fires every turn). A project without a database has nothing to release, and none is created.
export async function releaseSession(cwd: string, owner: string, env: NodeJS.ProcessEnv): Promise<number> {
  const ctx = await createContext({ cwd, env, write: false });
  try {
    // The session owner and every subagent owner (`owner/…`) with active locks in the project.
    const active = await readTransaction(ctx, async (now) => listLocks(ctx.db, { scope: ctx.scope, activeAt: now }));
    const owners = new Set(active.map((lock) => lock.owner).filter((o) => o === owner || o.startsWith(`${owner}/`)));
    let released = 0;
    for (const who of owners) released += (await release(ctx, { ids: [], owner: who, all: true, force: false, reason: 'session ended', releaseReason: 'session_end' })).released.length;
    try {
      await forgetSession(ctx, owner, hookClient());
    } catch {
      // an older schema without sessions, a busy database: the locks are released, which is what matters most
    }
    return released;
  } finally {
    ctx.db.close();
  }
}

// A finished subagent hands what it still holds to its session (SubagentStop): the session keeps the files
// its subagent changed, and the next subagent may take them over.
export async function handBackToSession(cwd: string, subagent: string, session: string, env: NodeJS.ProcessEnv): Promise<number> {
  const ctx = await createContext({ cwd, env, write: false });
  try {
    const held = await readTransaction(ctx, async (now) => listLocks(ctx.db, { scope: ctx.scope, owner: subagent, activeAt: now }));
    return held.length === 0 ? 0 : (await transfer(ctx, { from: subagent, to: session, by: subagent, force: false })).length;
  } finally {
    ctx.db.close();
  }
}
