import init from '../../../schema/postgres/0001_init.sql';
import projects from '../../../schema/postgres/0002_projects.sql';
import consumerXact from '../../../schema/postgres/0003_consumer_xact.sql';
import custodyBlobs from '../../../schema/postgres/0004_custody_blobs.sql';
import consumerProject from '../../../schema/postgres/0005_consumer_project.sql';

// PostgreSQL's own migrations, numbered apart from SQLite's: version 1 holds what SQLite reaches at version 7
// (0007's triggers excepted: schema/postgres/0001_init.sql says why).
// Append-only, like src/store/migrations.ts: a landed migration is never edited.
export const POSTGRES_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: '0001_init', sql: init },
  { version: 2, name: '0002_projects', sql: projects },
  { version: 3, name: '0003_consumer_xact', sql: consumerXact },
  { version: 4, name: '0004_custody_blobs', sql: custodyBlobs },
  { version: 5, name: '0005_consumer_project', sql: consumerProject },
];

export const POSTGRES_LATEST_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;
