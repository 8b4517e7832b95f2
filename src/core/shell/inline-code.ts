import type { Word } from './lex';
import { addPath, type Disk, type Sink } from './targets';

// `python3 -c "…"` / `node -e "…"`: the common forms of a one-line script writing a file, read from the
// code's string literals — `open('f', 'w')`, `Path('f').write_text(…)`, `os.remove('f')`,
// `fs.writeFileSync('f', …)`, `fs.rmSync('f')`. Anything else a script does is left to the after-command restore.
const PYTHON_WRITES = [
  /\bopen\(\s*(?:r|b|rb|br)?(['"])((?:(?!\1).)+)\1\s*,\s*(?:mode\s*=\s*)?(?:r|b|rb|br)?['"][^'"]*[wax+][^'"]*['"]/g,
  /\bPath\(\s*(?:r)?(['"])((?:(?!\1).)+)\1\s*\)\s*\.\s*(?:write_text|write_bytes|unlink|touch|rename|replace)\b/g,
  /\b(?:os\.(?:remove|unlink|truncate)|shutil\.(?:move|rmtree))\(\s*(?:r)?(['"])((?:(?!\1).)+)\1/g,
  /\bshutil\.(?:copy|copy2|copyfile|move)\(\s*(?:r)?['"][^'"]+['"]\s*,\s*(?:r)?(['"])((?:(?!\1).)+)\1/g,
];
const NODE_WRITES = [
  /\b(?:writeFileSync|appendFileSync|writeFile|appendFile|unlinkSync|unlink|rmSync|rm|truncateSync|truncate|createWriteStream|openSync)\(\s*(['"`])((?:(?!\1).)+)\1/g,
  /\b(?:copyFileSync|copyFile|renameSync|rename|cpSync)\(\s*['"`][^'"`]+['"`]\s*,\s*(['"`])((?:(?!\1).)+)\1/g,
];
const OPEN_SYNC_READ = /\bopenSync\(\s*(['"`])(?:(?!\1).)+\1\s*(?:\)|,\s*['"`]r['"`])/;

export function readInlineCode(program: string, args: readonly Word[], sink: Sink, cwd: string | undefined, disk: Disk): void {
  const python = /^python[0-9.]*$/.test(program);
  const node = program === 'node' || program === 'nodejs' || program === 'bun' || program === 'deno';
  if (!python && !node) return;
  const flag = python ? '-c' : undefined;
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.value;
    const inline = python ? text === flag : text === '-e' || text === '--eval' || text === '-p' || text === '--print';
    if (!inline) continue;
    const code = args[i + 1]?.value;
    if (code === undefined) return;
    for (const pattern of python ? PYTHON_WRITES : NODE_WRITES) {
      for (const match of code.matchAll(pattern)) {
        if (node && match[0].startsWith('openSync') && OPEN_SYNC_READ.test(match[0])) continue;
        const path = match[2];
        if (path !== undefined && !path.includes('${') && !path.includes('{')) addPath(sink, path, cwd, disk);
      }
    }
    return;
  }
}
