import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CoordContext } from '../../coord/context';
import type { PgConnection } from '../../store/postgres/pg-connection';
import { blobsFromServer, blobsOnServer, storeBlobOnServer } from '../../store/postgres/custody-blobs';
import { NO_DEADLINE, type Deadline } from '../../store/deadline';
import { blobId, readBlob, writeBlob } from '../../store/git/git-objects';
import { blobPresent, type KeepRepo } from '../../store/git/keep';

// On a server, a holder's recorded content is in the holder's clone's object store, and another clone's
// restore needs it (docs/postgres.md, "Custody across clones"). So custody copies each content it records
// there, up to SHARED_BLOB_MAX_BYTES, and a restore that lacks one takes it from there into its own object
// store (checked against its id: the server cannot pass off other bytes). A larger content stays in its
// clone: a restore elsewhere reports it missing (`not_restored`, why `content_missing`), as before.

/** The largest content shared through the server (a loose object's size on disk, compressed). */
export const SHARED_BLOB_MAX_BYTES = 1024 * 1024;

const BLOB_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function serverOf(ctx: Pick<CoordContext, 'db'>): PgConnection | undefined {
  return ctx.db.engine === 'postgres' ? (ctx.db as PgConnection) : undefined;
}

function idsOf(ids: Iterable<string | null | undefined>): string[] {
  return [...new Set([...ids].filter((id): id is string => typeof id === 'string' && BLOB_ID.test(id)))];
}

/** After custody recorded these contents on a server: those the server lacks are copied there (best effort). */
export async function shareBlobs(ctx: Pick<CoordContext, 'db'>, repo: Pick<KeepRepo, 'commonDir' | 'objectsDir'>, ids: Iterable<string | null | undefined>): Promise<void> {
  const server = serverOf(ctx);
  const wanted = server ? idsOf(ids).filter((id) => (statSync(join(repo.objectsDir, id.slice(0, 2), id.slice(2)), { throwIfNoEntry: false })?.size ?? Infinity) <= SHARED_BLOB_MAX_BYTES) : [];
  if (!server || wanted.length === 0) return;
  try {
    const stored = await blobsOnServer(server.pg, wanted);
    for (const id of wanted) if (!stored.has(id)) await storeBlobOnServer(server.pg, id, readBlob(repo.objectsDir, repo.commonDir, id));
  } catch {
    // The record is made; a restore elsewhere then reports the content missing, as before.
  }
}

/** Before a restore on a server: the contents it puts back that this clone lacks, taken from the server. */
export async function fetchSharedBlobs(
  ctx: Pick<CoordContext, 'db'>,
  repo: Pick<KeepRepo, 'commonDir' | 'objectsDir'>,
  ids: Iterable<string | null | undefined>,
  deadline: Deadline = NO_DEADLINE,
): Promise<void> {
  const server = serverOf(ctx);
  const wanted = server ? idsOf(ids).filter((id) => !blobPresent(repo, id, deadline)) : [];
  if (!server || wanted.length === 0) return;
  for (const [id, content] of await blobsFromServer(server.pg, wanted)) if (blobId(content) === id) writeBlob(repo.objectsDir, content, id);
}
