import { resolve } from 'node:path';
import type { HookCall, PayloadReader } from '../agents/adapter';
import { QUIET, type HookResult } from '../hook-types';
import { objectField, stringField, type Payload } from '../payload';
import { envWithin } from '../settings';
import { commandText } from '../shell-patch';
import { namedFiles, onlyReads } from '../edit-events';
import { recordHolderWrite } from './holder-write';
import { restoreEveryWorkTree } from './every-repo';
import { commandReach } from '../../core/shell/reach';
import { clientBackgrounded } from '../fast/reach';
import type { RestoreReport, ShellRequest } from './types';

// PostToolUse, one process per tool call (Claude Code and Codex): after a shell command, what it changed
// in files other agents hold is put back and the writer's model is told; after an edit tool (built-in or
// MCP), the file's new content becomes its holder's latest, which no restore undoes.

export async function afterToolCall({ adapter, parsed, env, cwd, deadline }: HookCall, client: PayloadReader): Promise<HookResult> {
  if (!parsed.ok) return { ...QUIET, stderr: `ic: tool result not checked: ${parsed.problem}\n` };
  const payload = parsed.value;
  const tool = stringField(payload, 'tool_name');
  const owner = client.callOwner(payload, env);
  if (tool === undefined || owner === undefined) return QUIET;
  const projectDir = client.dir(payload, env, cwd);
  const dir = stringField(payload, 'cwd') ?? projectDir;
  const budget = envWithin(env, deadline);
  // A shell command (its own writes to files the writer holds are recorded by the restore itself), run in
  // tool_input.workdir when given (Codex), as the before hook reads it.
  const workdir = stringField(objectField(payload, 'tool_input'), 'workdir');
  if (client.shellTools.includes(tool)) {
    const message = restoreMessage(await restoreEveryWorkTree(shellRequest(payload, owner, workdir ? resolve(dir, workdir) : dir, projectDir), budget, deadline));
    return adapter.afterToolReply(message);
  }
  const event = client.editEvent(payload, env);
  const content = tool === 'Write' ? stringField(objectField(payload, 'tool_input'), 'content') : undefined; // Claude Code's Write: the whole new text
  if (event.kind === 'edit') await recordHolderWrite(owner, event.paths, event.cwd ?? dir, budget, content === undefined ? undefined : { path: event.paths[0]!, content });
  else if (tool.startsWith('mcp__') && !onlyReads(tool)) {
    const paths = namedFiles(objectField(payload, 'tool_input')); // the paths its before hook reserved
    if (paths.length > 0) await recordHolderWrite(owner, paths, dir, budget);
  }
  return QUIET;
}

function shellRequest(payload: Payload, owner: string, cwd: string, projectDir: string): ShellRequest {
  const input = objectField(payload, 'tool_input');
  const command = commandText(input?.command ?? input?.cmd) ?? '';
  const callId = stringField(payload, 'tool_use_id') ?? stringField(payload, 'call_id'); // the key the before hook's snapshot used
  const duration = payload.duration_ms;
  // A job the command left running (`… &`, nohup), or the client moved the command to the background: its
  // writes may land after this hook, so the held files stay watched (late-writes.ts).
  const client = clientBackgrounded(payload.tool_response);
  const lingers = client.background || commandReach(command, cwd, process.env.HOME).background ? { lingers: client.pgid !== undefined ? { pgid: client.pgid } : {} } : {};
  return { owner, cwd, projectDir, command, ...(callId ? { callId } : {}), ...(typeof duration === 'number' && duration >= 0 ? { durationMs: duration } : {}), ...lingers };
}

// What the writer's model reads: which files went back and who holds them, where moved files are, and
// what to do instead.
export function restoreMessage(report: RestoreReport): string | undefined {
  const lines: string[] = [];
  for (const { path, holder } of report.restored) lines.push(`${JSON.stringify(path)} is held by ${holder}: your command changed it, so it was put back to ${holder}'s content.`);
  for (const { path, holder, movedTo } of report.displaced)
    lines.push(`${JSON.stringify(path)} was created by your command under a pattern ${holder} holds: it was moved to ${JSON.stringify(movedTo)} (nothing is lost).`);
  for (const { path, holder } of report.left ?? []) lines.push(`${JSON.stringify(path)} (held by ${holder}) changed while ${holder}'s own command was running, so ic left it as it is.`);
  for (const { path, holder } of report.editing ?? [])
    lines.push(`${JSON.stringify(path)} (held by ${holder}) changed while ${holder} was editing it, so ic left it as it is: ${holder}'s edit is never undone (do not change this file).`);
  for (const { path, holder } of report.unverified ?? [])
    lines.push(
      `${JSON.stringify(path)} (held by ${holder}) changed, but ic has no snapshot from before your command (its before hook did not run or failed), so it cannot tell your write from ${holder}'s own work and left the file as it is. If your command changed it, undo that change yourself; do not change this file.`,
    );
  for (const { path, holder, text } of report.refused ?? [])
    lines.push(`${JSON.stringify(path)} (held by ${holder}) was changed by your command but not put back: ${text}. Undo that change yourself (ic wrote nothing there); do not change this file.`);
  for (const { path, error } of report.indexLeft ?? [])
    lines.push(
      `${JSON.stringify(path)} was put back, but its index entry (which your command changed) could not be: ${error}. Run \`git restore --staged -- ${path}\` only if ${path} was not staged before.`,
    );
  for (const { path, holder, blob } of report.missing ?? [])
    lines.push(
      `${JSON.stringify(path)} is held by ${holder}: your command changed it, but ${holder}'s content (git blob ${blob.slice(0, 12)}) is no longer in git's object store, so ic left the file as it is. Do not change it; tell ${holder}.`,
    );
  for (const { path, event } of report.saved ?? []) lines.push(`What your command wrote to ${JSON.stringify(path)} is kept: \`coord undo ${event}\` puts it back once the file is free.`);
  if (lines.length === 0) return undefined;
  const holders = [...new Set([...report.restored, ...report.displaced].map((r) => r.holder))];
  const next =
    holders.length === 0
      ? []
      : [
          `Another agent is working on ${report.restored.length + report.displaced.length === 1 ? 'this file' : 'these files'}: do not change ${report.restored.length + report.displaced.length === 1 ? 'it' : 'them'} now. Work on something else, or ask ${holders.join(', ')} to release (\`coord who\` shows who holds what).`,
        ];
  return ['ic: your shell command wrote to files other agents hold.', ...lines, ...next].join('\n');
}
