// Writes man/ic.1, the manual page generated from the command tree and its help examples (`ic man`).
// Run by `npm run build` (and so by `prepack`), so the packed tarball ships it and `npm install -g` puts it on MANPATH.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const page = execFileSync(process.execPath, [join(root, 'bin', 'ic'), 'man'], { encoding: 'utf8' });
mkdirSync(join(root, 'man'), { recursive: true });
writeFileSync(join(root, 'man', 'ic.1'), page);
