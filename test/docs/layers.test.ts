import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/design/architecture.md: core < store < coord < hooks < cli. A module imports only from its own layer or below
// (src/*.ts, the shared helpers, sit below core; src/api.ts, an entry like the CLI, at the top), so no lower layer reaches up for what a higher one knows.
const SRC = resolve(__dirname, '../../src');
const LAYERS = ['core', 'store', 'coord', 'hooks', 'cli'];

function layerOf(file: string): number {
  const top = relative(SRC, file).split('/')[0]!;
  if (top === 'api.ts') return LAYERS.length;
  return top.endsWith('.ts') ? 0 : LAYERS.indexOf(top) + 1;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

// Each module's imports of other src modules (type imports included), as module paths without `.ts`.
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']*)'/g)].map(([, spec]) => resolve(dirname(file), spec!)).filter((target) => target.startsWith(SRC));
}

describe('layers', () => {
  it('no module in src imports from a layer above its own', () => {
    const upward: string[] = [];
    for (const file of sources(SRC)) {
      for (const target of importsOf(file)) if (layerOf(target) > layerOf(file)) upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
    expect(upward).toEqual([]);
  });

  // Issue #35: a circle (even through types alone) ties its modules into one that must be read whole.
  it('no import circle in src, type imports included', () => {
    const modules = new Map(sources(SRC).map((file) => [file.replace(/\.ts$/, ''), file]));
    const edges = (module: string) =>
      importsOf(modules.get(module)!)
        .map((target) => (modules.has(target) ? target : `${target}/index`))
        .filter((target) => modules.has(target));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (module: string, path: string[]): void => {
      if (state.get(module) === 'done') return;
      if (state.get(module) === 'open') return void circles.push([...path.slice(path.indexOf(module)), module].map((m) => relative(SRC, m)).join(' -> '));
      state.set(module, 'open');
      for (const target of edges(module)) visit(target, [...path, module]);
      state.set(module, 'done');
    };
    for (const module of modules.keys()) visit(module, []);
    expect(circles).toEqual([]);
  });
});
