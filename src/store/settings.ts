import type { Connection } from './connection';

// The repository's settings (schema/0002_settings.sql): text values by name, set by a person.
export async function readSetting(db: Connection, name: string): Promise<string | undefined> {
  const row = (await db.prepare('SELECT value FROM settings WHERE name = ?').get(name)) as { value: string } | undefined;
  return row?.value;
}

export async function writeSetting(db: Connection, name: string, value: string, now: number): Promise<void> {
  await db.prepare('INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at').run(name, value, now);
}
