import type { IcCommand } from './entries';
import { askerPrelude } from './opencode-plugin';

// The pi extension `ic coord install --pi` writes to .pi/extensions/ic.ts (pi loads a project's extensions
// from there at start-up, with jiti; no trust step). It only carries each tool call to `ic coord hook pi-…`
// and acts on the reply (a deny blocks the call; pi hands the reason to the model): every decision stays in
// ic. pi's session_shutdown (also at the end of `pi -p`) releases the session.
export const PI_EXTENSION_MARKER = '// ic-pi-extension';

export function renderPiExtension(ic: IcCommand): string {
  return `${askerPrelude(PI_EXTENSION_MARKER, 'pi', ic, '(name: string, payload: object): { decision?: string; reason?: string; systemMessage?: string }')}
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
