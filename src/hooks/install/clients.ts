import type { Target } from './plan';

// The agent clients `ic coord install` wires in, as people call them: `ic --help`, the manual and the install
// examples name them from here, and test/docs checks the guide against it. A new install target that is a
// client does not compile until it is named here.
export const CLIENT_NAMES = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  copilot: 'GitHub Copilot CLI',
  opencode: 'OpenCode',
  pi: 'pi',
  cline: 'Cline CLI',
} as const satisfies Record<Exclude<Target, 'git'>, string>;

// "Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, OpenCode, pi and Cline CLI".
export function clientList(): string {
  const names: string[] = Object.values(CLIENT_NAMES);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
