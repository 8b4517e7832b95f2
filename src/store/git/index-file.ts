import { readFileSync } from 'node:fs';

// git's index file (Documentation/gitformat-index.txt), read in-process: the paths git tracks, each with
// its blob id and the stat data git recorded, so a file whose stat still matches is known clean without
// reading it. Versions 2, 3 and 4 (prefix-compressed paths); extensions are not needed and not read.

export interface IndexEntry {
  path: string;
  blob: string;
  mode: number;
  size: number;
  mtimeMs: number;
  ino: number;
}

// The stage-0 entries whose path `wanted` accepts; an unreadable or missing index reads as empty. With
// `prefixes` (directory bases, '' for all), an entry outside all of them is skipped before its path is
// decoded: most of a large index is then never turned into strings.
export function readIndex(indexPath: string, wanted: (path: string) => boolean, prefixes?: readonly string[]): IndexEntry[] {
  const bytePrefixes = prefixes && !prefixes.includes('') ? prefixes.map((prefix) => Buffer.from(prefix, 'utf8')) : undefined;
  let data: Buffer;
  try {
    data = readFileSync(indexPath);
  } catch {
    return [];
  }
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return [];
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return [];
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count && offset + 62 <= data.length; i++) {
    const start = offset;
    const flags = data.readUInt16BE(start + 60);
    let cursor = start + 62;
    if (version >= 3 && flags & 0x4000) cursor += 2; // extended flags
    // Where the path's bytes are: in the entry, or (version 4) in `previous`, rebuilt from the one before.
    let [source, from, to] = [data, cursor, 0];
    if (version === 4) {
      let byte = data[cursor++]!;
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = data[cursor++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const end = data.indexOf(0, cursor);
      previous = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(cursor, end)]);
      offset = end + 1;
      [source, from, to] = [previous, 0, previous.length];
    } else {
      const length = flags & 0xfff;
      to = length < 0xfff ? cursor + length : data.indexOf(0, cursor);
      offset = start + ((to - start + 8) & ~7); // 1 to 8 NULs pad the entry to a multiple of 8
    }
    if ((flags >> 12) & 3) continue; // a merge conflict's stages
    if (bytePrefixes && !bytePrefixes.some((prefix) => startsWith(source, from, to, prefix))) continue;
    const path = source.toString('utf8', from, to);
    if (!wanted(path)) continue;
    entries.push({
      path,
      blob: data.toString('hex', start + 40, start + 60),
      mode: data.readUInt32BE(start + 24),
      size: data.readUInt32BE(start + 36),
      mtimeMs: data.readUInt32BE(start + 8) * 1000 + Math.floor(data.readUInt32BE(start + 12) / 1e6),
      ino: data.readUInt32BE(start + 20),
    });
  }
  return entries;
}

function startsWith(source: Buffer, from: number, to: number, prefix: Buffer): boolean {
  if (to - from < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (source[from + k] !== prefix[k]) return false;
  return true;
}
