import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { removeStale } from './stale-files';
import { join } from 'node:path';
import type { SnapshotRow } from './custody';
import { fnv64, runningDir, unlinkQuietly } from './custody-digest';
import { readRegularFile } from './regular-file';
import { isPostgresUrl } from './postgres/url';

// One file per shell command that the fast path let run (beside the database, in <db>-running/): the
// command's start and what the held files were, as custody_commands and custody_snapshots hold them for
// a command the full hook let run. Every custody decision reads both.

export interface CommandMarker {
  scope: string;
  writer: string;
  call_id: string;
  started_at: number;
  rows: SnapshotRow[];
}

// Where the marker of one command is (or would be).
export function markerFile(dbPath: string, scope: string, writer: string, callId: string): string {
  return join(runningDir(dbPath), `${fnv64(`${scope}\0${writer}\0${callId}`)}.json`);
}

// Written in place, one small write: a reader that catches it half-written cannot parse it and reads it as
// absent, as it would a moment earlier (no rename: it costs the hook more than the marker's write).
export function writeMarker(dbPath: string, marker: CommandMarker): void {
  const file = markerFile(dbPath, marker.scope, marker.writer, marker.call_id);
  const text = JSON.stringify(marker);
  try {
    writeFileSync(file, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(runningDir(dbPath), { recursive: true }); // the first marker of this database
    writeFileSync(file, text);
  }
}

export function readMarker(dbPath: string, scope: string, writer: string, callId: string): CommandMarker | undefined {
  if (isPostgresUrl(dbPath)) return undefined; // a server database has no files beside it (the fast path is off)
  const marker = parseMarker(markerFile(dbPath, scope, writer, callId));
  return marker && marker.scope === scope && marker.writer === writer && marker.call_id === callId ? marker : undefined;
}

export function removeMarker(dbPath: string, scope: string, writer: string, callId: string): void {
  if (isPostgresUrl(dbPath)) return;
  unlinkQuietly(markerFile(dbPath, scope, writer, callId));
}

// The writers of the scope's commands that started at or after `since` and have not ended.
export function markedWriters(dbPath: string, scope: string, since: number): string[] {
  return listMarkers(dbPath)
    .filter((marker) => marker.scope === scope && marker.started_at >= since)
    .map((marker) => marker.writer);
}

// Markers of commands whose after hook never came (killed, timed out), once older than the cutoff.
export function purgeMarkers(dbPath: string, startedBefore: number): void {
  if (!isPostgresUrl(dbPath)) removeStale(runningDir(dbPath), startedBefore, { ageOf: (path, name) => (name.endsWith('.json') ? parseMarker(path)?.started_at : undefined) });
}

// None on a server, or before the first marker.
export function listMarkers(dbPath: string): CommandMarker[] {
  const dir = runningDir(dbPath);
  let names: string[];
  try {
    names = isPostgresUrl(dbPath) ? [] : readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => (name.endsWith('.json') ? (parseMarker(join(dir, name)) ?? []) : []));
}

function parseMarker(file: string): CommandMarker | undefined {
  try {
    const marker = JSON.parse(readRegularFile(file) ?? 'null') as CommandMarker;
    return typeof marker?.scope === 'string' && typeof marker.writer === 'string' && typeof marker.started_at === 'number' && Array.isArray(marker.rows) ? marker : undefined;
  } catch {
    return undefined;
  }
}
