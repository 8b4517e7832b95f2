import { createContext, readTransaction } from '../coord/context';
import { release } from '../coord/release';
import { listLocks } from '../store/locks';
import { readRegularFile } from '../store/regular-file';
import { editReason, groupByProject, type EditRequest } from './edit';
import { literalPatterns } from '../coord/paths';

// A tool call that was refused after ic reserved its file (the person denied permission, the edit failed)
// gives back the locks that very call created. Locks it only renewed carry an earlier call's reason and
// stay. Runs only on those rare events, never on the edit path.
export async function releaseRefusedEdit(request: EditRequest & { toolUseId: string }, env: NodeJS.ProcessEnv): Promise<number> {
  const reason = editReason(request.toolUseId);
  let released = 0;
  for (const group of groupByProject(request, env)) {
    const patterns = new Set(literalPatterns(group.workspace, request.cwd, group.paths).patterns.map((p) => p.pattern));
    if (patterns.size === 0) continue;
    const ctx = await createContext({ workspace: group.workspace, env, write: false });
    try {
      const ids = (await readTransaction(ctx, async (now) => listLocks(ctx.db, { scope: ctx.scope, owner: request.owner, type: 'file', activeAt: now })))
        .filter((lock) => lock.reason === reason && patterns.has(lock.pattern))
        .map((lock) => lock.id);
      if (ids.length === 0) continue;
      released += (await release(ctx, { ids, owner: request.owner, all: false, force: false, reason: 'the edit was refused', releaseReason: 'released' })).released.length;
    } finally {
      ctx.db.close();
    }
  }
  return released;
}

const TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024;

// The tool calls whose result was an error, read from the end of a Claude Code transcript (JSON lines;
// a tool_result block with is_error: true). A permission the person refused ends a call that way without
// any hook event of its own, so the turn's end (Stop) looks here.
export function failedToolCalls(transcriptPath: string): Set<string> {
  const failed = new Set<string>();
  const text = readRegularFile(transcriptPath, TRANSCRIPT_TAIL_BYTES); // not a FIFO: one at transcript_path hung the Stop hook
  if (text === undefined) return failed;
  for (const line of text.split('\n')) {
    if (!line.includes('"is_error":true')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // the first line of a tail may be cut
    }
    const content = (entry as { message?: { content?: unknown } }).message?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (block?.type === 'tool_result' && block.is_error === true && typeof block.tool_use_id === 'string') failed.add(block.tool_use_id);
    }
  }
  return failed;
}

// At the end of a turn: release the locks of `owner` in the project whose creating tool call failed.
export async function releaseFailedCalls(dir: string, owner: string, transcriptPath: string, env: NodeJS.ProcessEnv): Promise<number> {
  const failed = failedToolCalls(transcriptPath);
  if (failed.size === 0) return 0;
  const reasons = new Set([...failed].map((id) => editReason(id)));
  const ctx = await createContext({ cwd: dir, env, write: false });
  try {
    const ids = (await readTransaction(ctx, async (now) => listLocks(ctx.db, { scope: ctx.scope, owner, type: 'file', activeAt: now })))
      .filter((lock) => reasons.has(lock.reason ?? ''))
      .map((lock) => lock.id);
    if (ids.length === 0) return 0;
    return (await release(ctx, { ids, owner, all: false, force: false, reason: 'the edit was refused', releaseReason: 'released' })).released.length;
  } finally {
    ctx.db.close();
  }
}
