import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';

// Gemini CLI and Copilot CLI run a repository's hooks only in a folder the user trusts, and skip them
// silently otherwise. `install --trust` records that trust the way each client itself saves it.

// Gemini CLI: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else <$GEMINI_CLI_HOME or ~>/.gemini/trustedFolders.json, a
// JSON object { "<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST" } (the longest matching rule wins).
// Trusting a folder also lets Gemini read its other project settings (.gemini/, .env, MCP servers).
export function geminiTrustFile(env: NodeJS.ProcessEnv): string {
  return env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini', 'trustedFolders.json');
}

function inside(folder: string, path: string): boolean {
  const root = resolve(folder);
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined || text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// Is projectRoot trusted by the rules in the trust file's text (undefined: no rule says)?
export function geminiTrusts(text: string | undefined, projectRoot: string): boolean | undefined {
  const rules = jsonObject(text) ?? {};
  let best: { length: number; level: unknown } | undefined;
  for (const [folder, level] of Object.entries(rules)) {
    const effective = level === 'TRUST_PARENT' ? dirname(folder) : folder;
    if (inside(effective, projectRoot) && (best === undefined || folder.length > best.length)) best = { length: folder.length, level };
  }
  if (best === undefined) return undefined;
  return best.level === 'TRUST_FOLDER' || best.level === 'TRUST_PARENT';
}

/** What recording the trust does to a trust file: nothing (trusted already), a new text, or refuse (not JSON). */
export type TrustUpdate = { kind: 'trusted' } | { kind: 'write'; text: string } | { kind: 'unreadable' };

export function withGeminiTrust(text: string | undefined, projectRoot: string): TrustUpdate {
  const rules = jsonObject(text);
  if (rules === undefined) return { kind: 'unreadable' };
  if (geminiTrusts(text, projectRoot) === true) return { kind: 'trusted' };
  return { kind: 'write', text: `${JSON.stringify({ ...rules, [projectRoot]: 'TRUST_FOLDER' }, null, 2)}\n` };
}

// Copilot CLI: <$COPILOT_HOME or ~/.copilot>/config.json (JSON after `//` comment lines, which Copilot
// writes and manages), key trustedFolders: an array of absolute folders (what "trust this folder" saves).
export function copilotConfigFile(env: NodeJS.ProcessEnv): string {
  return join(env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot'), 'config.json');
}

export function copilotTrusts(text: string | undefined, projectRoot: string): boolean {
  const folders = jsonObject(text)?.trustedFolders;
  return Array.isArray(folders) && folders.some((folder) => typeof folder === 'string' && inside(folder, projectRoot));
}

// config.json with projectRoot in trustedFolders, its comment lines and other keys kept.
export function withCopilotTrust(text: string | undefined, projectRoot: string): TrustUpdate {
  const config = jsonObject(text);
  if (config === undefined) return { kind: 'unreadable' };
  if (copilotTrusts(text, projectRoot)) return { kind: 'trusted' };
  const comments = (text ?? '').split('\n').filter((line) => /^\s*\/\//.test(line));
  const folders = Array.isArray(config.trustedFolders) ? config.trustedFolders : [];
  const json = JSON.stringify({ ...config, trustedFolders: [...folders, projectRoot] }, null, 2);
  return { kind: 'write', text: `${[...comments, json].join('\n')}\n` };
}
