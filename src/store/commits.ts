import type { Connection } from './connection';
import { firstEventIdSince, type StoredEvent } from './events';

// The newest `committed` event in the scope since `since` whose owner `isOther` accepts (the status line's
// "HEAD moved by X"); reads back from the newest event, within the window.
export async function newestCommitSince(db: Connection, scope: string, since: number, isOther: (owner: string) => boolean): Promise<StoredEvent | undefined> {
  const rows = (await db
    .prepare("SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail FROM events WHERE id >= ? AND type = 'committed' AND scope = ? ORDER BY id DESC LIMIT 20")
    .all(await firstEventIdSince(db, since), scope)) as StoredEvent[];
  return rows.find((row) => row.created_at >= since && isOther(row.owner));
}
