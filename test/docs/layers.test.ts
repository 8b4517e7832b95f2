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

describe('layers', () => {
  it('no module in src imports from a layer above its own', () => {
    const upward: string[] = [];
    for (const file of sources(SRC)) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']*)'/g)) {
        const target = resolve(dirname(file), spec!);
        if (target.startsWith(SRC) && layerOf(target) > layerOf(file)) upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
