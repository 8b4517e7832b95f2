import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

// The bundle embeds schema/*.sql as text (esbuild's text loader); tests load them the same way.
export const sqlAsText: Plugin = {
  name: 'sql-as-text',
  load(id) {
    if (id.endsWith('.sql')) return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
    return null;
  },
};
