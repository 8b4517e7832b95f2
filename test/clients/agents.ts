import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cache, CLINE, COPILOT, GEMINI, OPENCODE, PI, run, type Run, type Scratch } from './support';

// Running the real Gemini CLI, Copilot CLI and OpenCode in a scratch repository against a local mock
// (test/clients/mock-gemini.mjs, mock-chat.mjs), as /work/shared/real-clients.md describes.

// Gemini CLI: an API key selected as auth method in the user settings, the mock as its base URL.
export function prepareGeminiHome(scratch: Scratch): void {
  mkdirSync(join(scratch.home, '.gemini'), { recursive: true });
  writeFileSync(join(scratch.home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
}

export async function runGemini(scratch: Scratch, mockUrl: string, prompt: string, env: Record<string, string> = {}): Promise<Run> {
  return run(GEMINI.command, [...GEMINI.prefix, '-p', prompt, '--yolo'], { cwd: scratch.repo, env: baseEnv(scratch.home, { GEMINI_API_KEY: 'x', GOOGLE_GEMINI_BASE_URL: mockUrl, ...env }) });
}

// Copilot CLI: offline, a custom OpenAI-compatible provider. Its platform package unpacks itself into the
// XDG cache on first run (235 MB): one cache dir for all scratch homes.
export async function runCopilot(scratch: Scratch, mockUrl: string, prompt: string, env: Record<string, string> = {}): Promise<Run> {
  const copilotEnv = { COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: mockUrl, COPILOT_PROVIDER_API_KEY: 'x', COPILOT_MODEL: 'x', XDG_CACHE_HOME: join(cache, 'copilot-xdg-cache'), ...env };
  return run(COPILOT.command, [...COPILOT.prefix, '-p', prompt, '--allow-all-tools'], { cwd: scratch.repo, env: baseEnv(scratch.home, copilotEnv) });
}

// OpenCode: a project opencode.json naming the mock as an OpenAI-compatible provider; XDG dirs in the
// scratch home; its config dirs pre-filled with the plugin SDK it would otherwise npm-install at start-up
// (scripts/install-clients.mjs caches it); a stub `rg` on PATH, or it downloads ripgrep from GitHub.
export function prepareOpencode(scratch: Scratch, mockUrl: string): void {
  const provider = { npm: '@ai-sdk/openai-compatible', name: 'mock', options: { baseURL: mockUrl, apiKey: 'x' }, models: { 'mock-model': { name: 'mock', tool_call: true } } };
  writeFileSync(join(scratch.repo, 'opencode.json'), JSON.stringify({ model: 'mock/mock-model', provider: { mock: provider } }));
  const template = join(cache, `opencode-plugin@${OPENCODE.version}`);
  for (const dir of [join(scratch.home, '.config', 'opencode'), join(scratch.repo, '.opencode')]) {
    mkdirSync(dir, { recursive: true });
    for (const file of ['package.json', 'package-lock.json', '.gitignore']) copyFileSync(join(template, file), join(dir, file));
    execFileSync('cp', ['-al', join(template, 'node_modules'), join(dir, 'node_modules')]); // hard links: 64 MB in a blink
  }
  mkdirSync(join(scratch.root, 'bin'), { recursive: true });
  writeFileSync(join(scratch.root, 'bin', 'rg'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
}

export async function runOpencode(scratch: Scratch, prompt: string, env: Record<string, string> = {}): Promise<Run> {
  const h = scratch.home;
  const xdg = { XDG_CONFIG_HOME: join(h, '.config'), XDG_DATA_HOME: join(h, '.local', 'share'), XDG_CACHE_HOME: join(h, '.cache'), XDG_STATE_HOME: join(h, '.local', 'state') };
  const openEnv = { ...xdg, OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', PATH: `${join(scratch.root, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`, ...env };
  return run(OPENCODE.command, [...OPENCODE.prefix, 'run', prompt], { cwd: scratch.repo, env: baseEnv(h, openEnv), timeoutMs: 300_000 });
}

// pi: the mock as an OpenAI-compatible provider in its models config (~/.pi/agent/models.json); offline
// (no start-up network calls). A run is one prompt (`pi -p`); session_shutdown fires as it exits.
export function preparePi(scratch: Scratch, mockUrl: string): void {
  const provider = { baseUrl: mockUrl, api: 'openai-completions', apiKey: 'x', compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }, models: [{ id: 'mock-model' }] };
  mkdirSync(join(scratch.home, '.pi', 'agent'), { recursive: true });
  writeFileSync(join(scratch.home, '.pi', 'agent', 'models.json'), JSON.stringify({ providers: { mock: provider } }));
}

export async function runPi(scratch: Scratch, prompt: string, env: Record<string, string> = {}): Promise<Run> {
  return run(PI.command, [...PI.prefix, '-p', '--provider', 'mock', '--model', 'mock-model', '--offline', prompt], {
    cwd: scratch.repo,
    env: baseEnv(scratch.home, { PI_OFFLINE: '1', ...env }),
    timeoutMs: 180_000,
  });
}

// Cline's CLI: `cline auth` saves the mock as its OpenAI-compatible provider; a run is one task
// (`cline --json "…"`), tools auto-approved. `--data-dir` keeps its state in the scratch home and runs it
// in-process: without it, Cline starts a hub daemon (port 25463) that outlives the run and the test.
const clineData = (scratch: Scratch) => join(scratch.home, 'cline-data');
export async function prepareCline(scratch: Scratch, mockUrl: string): Promise<void> {
  const auth = await run(CLINE.command, [...CLINE.prefix, 'auth', '--data-dir', clineData(scratch), '-p', 'openai', '-k', 'x', '-m', 'mock-model', '-b', mockUrl], {
    cwd: scratch.repo,
    env: baseEnv(scratch.home),
  });
  if (auth.code !== 0) throw new Error(`cline auth failed: ${auth.stderr}`);
}

export async function runCline(scratch: Scratch, prompt: string, env: Record<string, string> = {}): Promise<Run> {
  return run(CLINE.command, [...CLINE.prefix, '--data-dir', clineData(scratch), '--json', prompt], {
    cwd: scratch.repo,
    env: baseEnv(scratch.home, { CLINE_LOG_ENABLED: '0', ...env }),
    timeoutMs: 300_000,
  });
}

// Polls until the condition holds (a held-open session reached its step), at most 60 s.
export async function waitFor(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error('timed out waiting for the scenario to reach its step');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
