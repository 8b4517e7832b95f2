import { describe, expect, it } from 'vitest';
import { codexHookHash, codexHookTrusts, trustedHash, withTrustEntries } from '../../src/hooks/install/codex-trust';
import { CODEX_HOOK_NAMES } from '../../src/hooks/names';

// The hashes below are what Codex 0.169.0 itself reported (`codex app-server`, hooks/list, currentHash)
// for these exact handlers in /tmp/cx/repo/.codex/hooks.json; test/clients proves them again on a real run.
const hooksJson = JSON.stringify({
  hooks: {
    PreToolUse: [{ matcher: 'apply_patch|Bash', hooks: [{ type: 'command', command: "'/x/bin/ic' coord hook codex-pre-edit", timeout: 10 }] }],
    SessionEnd: [{ hooks: [{ type: 'command', command: "'/x/bin/ic' coord hook codex-session-end", timeout: 3 }] }],
  },
});

describe("Codex's hook trust", () => {
  it('computes the key and hash Codex computes', () => {
    expect(codexHookTrusts('/tmp/cx/repo/.codex/hooks.json', hooksJson, CODEX_HOOK_NAMES)).toEqual([
      { key: '/tmp/cx/repo/.codex/hooks.json:pre_tool_use:0:0', hash: 'sha256:4c6b5d42befdba4aebe2cdbfa6852d8a77f61e5b07772e6cd33287f21d2767b0' },
      { key: '/tmp/cx/repo/.codex/hooks.json:session_end:0:0', hash: 'sha256:7a0b4323eaba18c363b83e1a7db17ac685858941756c42fe1fc3d50d821a8cc5' },
    ]);
  });

  it('a different command, matcher or timeout is a different hash', () => {
    const base = codexHookHash('PreToolUse', 'apply_patch|Bash', { command: 'ic coord hook codex-pre-edit', timeout: 10 });
    expect(codexHookHash('PreToolUse', 'apply_patch', { command: 'ic coord hook codex-pre-edit', timeout: 10 })).not.toBe(base);
    expect(codexHookHash('PreToolUse', 'apply_patch|Bash', { command: 'ic coord hook codex-pre-edit', timeout: 11 })).not.toBe(base);
    expect(codexHookHash('PreToolUse', 'apply_patch|Bash', { command: "'/y/ic' coord hook codex-pre-edit", timeout: 10 })).not.toBe(base);
  });

  it('writes trust entries next to the user config, replaces them in place, and is idempotent', () => {
    const user = 'model = "gpt-5.5"\n\n[projects."/r"]\ntrust_level = "trusted"\n';
    const trusts = [{ key: '/r/.codex/hooks.json:pre_tool_use:0:0', hash: 'sha256:aa' }];
    const once = withTrustEntries(user, trusts);
    expect(once).toBe(`${user}\n[hooks.state."/r/.codex/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:aa"\n`);
    expect(withTrustEntries(once, trusts)).toBe(once);
    const moved = withTrustEntries(once, [{ ...trusts[0]!, hash: 'sha256:bb' }]);
    expect(moved).toBe(once.replace('sha256:aa', 'sha256:bb'));
    expect(trustedHash(moved, trusts[0]!.key)).toBe('sha256:bb');
    expect(trustedHash(user, trusts[0]!.key)).toBeUndefined();
  });
});
