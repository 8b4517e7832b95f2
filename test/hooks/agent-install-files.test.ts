import { describe, expect, it } from 'vitest';
import { copilotTrusts, geminiTrusts, withCopilotTrust, withGeminiTrust } from '../../src/hooks/install/agent-trust';
import { withExcludes as withExcludesText } from '../../src/hooks/install/excludes';

// The exclude text after a change; null (nothing but our block was left) reads as no file.
const withExcludes = (text: string | null | undefined, add: string[], remove: string[]) => withExcludesText(text ?? undefined, add, remove);

describe('.git/info/exclude block', () => {
  it('adds entries in one marked block and takes them out again byte for byte, whatever the file looked like', () => {
    for (const text of [undefined, '# git ls-files --others --exclude-from=.git/info/exclude\n# *~\n', '*.log', 'a\n\nb\n']) {
      const one = withExcludes(text, ['.gemini/settings.json'], []);
      const two = withExcludes(one, ['.github/hooks/ic.json', '.gemini/settings.json'], []);
      expect(two!.match(/# >>> ic coord install/g)).toHaveLength(1);
      expect(withExcludes(two, ['.github/hooks/ic.json'], [])).toBe(two);
      expect(withExcludes(two, [], ['.github/hooks/ic.json'])).toBe(one);
      expect(withExcludes(withExcludes(two, [], ['.github/hooks/ic.json']), [], ['.gemini/settings.json'])).toBe(text ?? null); // null: the file held only our block
    }
  });

  it('keeps what follows the block, and what the user wrote after it', () => {
    const installed = withExcludes('top\n', ['x'], [])!;
    const edited = `${installed}mine\n`;
    expect(withExcludes(edited, [], ['x'])).toBe('top\nmine\n');
  });
});

describe('client trust files', () => {
  it('Gemini: the longest matching rule wins; TRUST_PARENT trusts the parent; an unreadable file is refused', () => {
    expect(geminiTrusts(JSON.stringify({ '/w': 'TRUST_FOLDER', '/w/repo': 'DO_NOT_TRUST' }), '/w/repo')).toBe(false);
    expect(geminiTrusts(JSON.stringify({ '/w/other': 'TRUST_PARENT' }), '/w/repo')).toBe(true);
    expect(geminiTrusts(JSON.stringify({ '/w/repo2': 'TRUST_FOLDER' }), '/w/repo')).toBeUndefined();
    expect(withGeminiTrust(undefined, '/w/repo')).toEqual({ kind: 'write', text: '{\n  "/w/repo": "TRUST_FOLDER"\n}\n' });
    expect(withGeminiTrust(JSON.stringify({ '/w': 'TRUST_FOLDER' }), '/w/repo')).toEqual({ kind: 'trusted' });
    expect(withGeminiTrust('not json', '/w/repo')).toEqual({ kind: 'unreadable' });
  });

  it("Copilot: trustedFolders covers sub-folders; the file's comment lines and other keys stay", () => {
    const config = '// managed\n{\n  "firstLaunchAt": "x",\n  "trustedFolders": ["/w/a"]\n}\n';
    expect(copilotTrusts(config, '/w/a/sub')).toBe(true);
    expect(copilotTrusts(config, '/w/ab')).toBe(false);
    const update = withCopilotTrust(config, '/w/b');
    expect(update.kind).toBe('write');
    const text = (update as { text: string }).text;
    expect(text.startsWith('// managed\n{')).toBe(true);
    expect(JSON.parse(text.replace(/^\/\/.*$/gm, ''))).toEqual({ firstLaunchAt: 'x', trustedFolders: ['/w/a', '/w/b'] });
    expect(withCopilotTrust(text, '/w/b')).toEqual({ kind: 'trusted' });
  });
});
