import type { IcCommand } from './entries';

// The pi extension `ic coord install --pi` writes to .pi/extensions/ic.ts (pi loads a project's extensions
// from there at start-up, with jiti; no trust step). It only carries each tool call to `ic coord hook pi-…`
// and acts on the reply (a deny blocks the call; pi hands the reason to the model): every decision stays in
// ic. pi's session_shutdown (also at the end of `pi -p`) releases the session.
export const PI_EXTENSION_MARKER = '// ic-pi-extension';

export function renderPiExtension(ic: IcCommand): string {
  const program = ic.kind === 'path' ? ic.bin : 'ic';
  return `${PI_EXTENSION_MARKER} (written by \`ic coord install --pi\`; \`ic coord uninstall --pi\` removes it)
// Each tool call goes through \`ic coord hook pi-pre-tool\` / \`pi-post-tool\`; ic decides, this file only asks.
import { spawnSync } from 'node:child_process';

const IC = ${JSON.stringify(program)};

function hook(name: string, payload: object): { decision?: string; reason?: string; systemMessage?: string } {
  const result = spawnSync(IC, ['coord', 'hook', name], { input: JSON.stringify(payload), encoding: 'utf8', timeout: 15000 });
  if (result.error || result.status !== 0) return process.env.IC_HOOK_FAIL === 'closed' && name === 'pi-pre-tool' ? { decision: 'deny', reason: \`ic could not check this tool call (\${result.error ? result.error.message : 'exit ' + result.status}); IC_HOOK_FAIL=closed\` } : {};
  try {
    return result.stdout.trim() === '' ? {} : JSON.parse(result.stdout);
  } catch {
    return {};
  }
}

export default function (pi: any) {
  const call = (event: any, ctx: any) => ({ session_id: ctx.sessionManager.getSessionId(), call_id: event.toolCallId, cwd: ctx.cwd, tool: event.toolName, input: event.input ?? {} });
  pi.on('tool_call', async (event: any, ctx: any) => {
    const reply = hook('pi-pre-tool', call(event, ctx));
    if (reply.decision === 'deny') return { block: true, reason: reply.reason };
  });
  // What custody put back after a shell command is added to the tool's result, so the model reads it.
  pi.on('tool_result', async (event: any, ctx: any) => {
    const reply = hook('pi-post-tool', call(event, ctx));
    if (reply.systemMessage) return { content: [...(event.content ?? []), { type: 'text', text: reply.systemMessage }] };
  });
  pi.on('session_shutdown', async (_event: any, ctx: any) => {
    hook('pi-session-end', { session_id: ctx.sessionManager.getSessionId(), cwd: ctx.cwd });
  });
}
`;
}
