import type { PostgresConnection } from './connection';

// Custody contents kept on the server for every clone (schema/postgres/0004_custody_blobs.sql). Only SQL
// here; what is shared and when is src/hooks/custody/shared-blobs.ts's. Each statement commits on its own:
// a blob is the same bytes whoever stores it, so racing writers need no lock (ON CONFLICT DO NOTHING).

/** Which of `ids` the server already has. */
export async function blobsOnServer(db: PostgresConnection, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.all<{ blob: string }>('SELECT blob FROM custody_blobs WHERE blob IN (SELECT jsonb_array_elements_text(?::jsonb))', [JSON.stringify(ids)]);
  return new Set(rows.map((row) => row.blob));
}

export async function storeBlobOnServer(db: PostgresConnection, id: string, content: Buffer): Promise<void> {
  await db.run('INSERT INTO custody_blobs (blob, size, content, stored_at) VALUES (?, ?, ?, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) ON CONFLICT (blob) DO NOTHING', [
    id,
    content.length,
    content.toString('base64'),
  ]);
}

/** The contents of those of `ids` the server has. */
export async function blobsFromServer(db: PostgresConnection, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const rows = await db.all<{ blob: string; content: string }>('SELECT blob, content FROM custody_blobs WHERE blob IN (SELECT jsonb_array_elements_text(?::jsonb))', [JSON.stringify(ids)]);
  return new Map(rows.map((row) => [row.blob, Buffer.from(row.content, 'base64')]));
}

/** Removes blobs stored before `before` that no live custody record names; returns how many. */
export async function sweepServerBlobs(db: PostgresConnection, before: number): Promise<number> {
  return (
    await db.run(
      'DELETE FROM custody_blobs b WHERE stored_at < ? AND NOT EXISTS (SELECT 1 FROM custody_latest l WHERE l.blob = b.blob) AND NOT EXISTS (SELECT 1 FROM custody_snapshots s WHERE s.blob = b.blob)',
      [before],
    )
  ).changes;
}
