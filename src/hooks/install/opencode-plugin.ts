import type { IcCommand } from './entries';

// The OpenCode plugin `ic coord install --opencode` writes to .opencode/plugin/ic.js. It only carries each
// tool call to `ic coord hook opencode-…` and acts on the reply (a deny is thrown, which OpenCode hands to
// the model as the tool's error): every decision stays in ic. OpenCode's run mode has no session-end
// event, so the sessions it saw are released when the OpenCode process exits (else TTL and liveness).
export const OPENCODE_PLUGIN_MARKER = '// ic-opencode-plugin';

export function renderOpencodePlugin(ic: IcCommand): string {
  return `${askerPrelude(OPENCODE_PLUGIN_MARKER, 'opencode', ic, '(name, payload)')}
export const IcCoordination = async ({ directory }) => {
  const sessions = new Set();
  const argsOf = new Map(); // call id → the arguments the before-hook saw, for the after-hook
  process.once('exit', () => {
    for (const session_id of sessions) hook('opencode-session-end', { session_id, cwd: directory });
  });
  const call = (input, args) => ({ session_id: input.sessionID, call_id: input.callID, cwd: directory, tool: input.tool, args: args ?? {} });
  return {
    'tool.execute.before': async (input, output) => {
      sessions.add(input.sessionID);
      argsOf.set(input.callID, output.args);
      const reply = hook('opencode-pre-tool', call(input, output.args));
      if (reply.decision === 'deny') throw new Error(reply.reason);
    },
    'tool.execute.after': async (input) => {
      const args = argsOf.get(input.callID) ?? input.args;
      argsOf.delete(input.callID);
      hook('opencode-post-tool', call(input, args));
    },
  };
};
`;
}

// The start of both generated files (this plugin, pi's extension): the marker line, the ic they run, and
// hook(), which asks ic and reads its reply (a failure denies only with IC_HOOK_FAIL=closed).
export function askerPrelude(marker: string, agent: 'opencode' | 'pi', ic: IcCommand, signature: string): string {
  return `${marker} (written by \`ic coord install --${agent}\`; \`ic coord uninstall --${agent}\` removes it)
// Each tool call goes through \`ic coord hook ${agent}-pre-tool\` / \`${agent}-post-tool\`; ic decides, this file only asks.
import { spawnSync } from 'node:child_process';

const IC = ${JSON.stringify(ic.kind === 'path' ? ic.bin : 'ic')};

function hook${signature} {
  const result = spawnSync(IC, ['coord', 'hook', name], { input: JSON.stringify(payload), encoding: 'utf8', timeout: 15000 });
  if (result.error || result.status !== 0) return process.env.IC_HOOK_FAIL === 'closed' && name === '${agent}-pre-tool' ? { decision: 'deny', reason: \`ic could not check this tool call (\${result.error ? result.error.message : 'exit ' + result.status}); IC_HOOK_FAIL=closed\` } : {};
  try {
    return result.stdout.trim() === '' ? {} : JSON.parse(result.stdout);
  } catch {
    return {};
  }
}
`;
}
