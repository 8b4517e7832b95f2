// The text work of the PostgreSQL engine that needs no server: `?` placeholders numbered outside literals,
// and passwords kept out of URLs and messages (the suite with a real server is test/postgres/).
import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from '../../src/store/postgres/placeholders';
import { isPostgresUrl, parameterOf, redactText, redactUrl, secretsOf, shownUrl, withDefaults, withParameter } from '../../src/store/postgres/url';

describe('numberPlaceholders', () => {
  it('numbers each ? in order', () => {
    expect(numberPlaceholders('SELECT * FROM locks WHERE scope = ? AND base IN (?, ?) AND expires_at > ?')).toEqual({
      sql: 'SELECT * FROM locks WHERE scope = $1 AND base IN ($2, $3) AND expires_at > $4',
      count: 4,
    });
  });

  it('leaves ? inside string literals, quoted identifiers, comments and dollar quotes', () => {
    const sql = `SELECT '?', 'it''s ?', E'\\'?', "col?", $$ ? $$, $tag$ ? $tag$ -- ?\n/* ? /* ? */ ? */ FROM t WHERE a = ?`;
    expect(numberPlaceholders(sql)).toEqual({ sql: sql.replace(/= \?$/, '= $1'), count: 1 });
  });

  it('does not take a backslash as an escape in a plain literal, nor a $n parameter as a dollar quote', () => {
    expect(numberPlaceholders("SELECT 'a\\', ?, x$1 FROM t").sql).toBe("SELECT 'a\\', $1, x$1 FROM t");
  });
});

describe('connection URLs', () => {
  it('recognises both schemes', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('postgresql:///db?host=/tmp')).toBe(true);
    expect(isPostgresUrl('/repo/.git/ic/ic.db')).toBe(false);
  });

  it('hides the password of the user part and of a password= parameter, keeping the rest readable', () => {
    expect(redactUrl('postgresql://alice:s%40cret@db.example:5432/ic?sslmode=require')).toBe('postgresql://alice:***@db.example:5432/ic?sslmode=require');
    expect(redactUrl('postgres://alice@h/ic?password=x&application_name=a')).toBe('postgres://alice@h/ic?password=***&application_name=a');
    expect(redactUrl('postgres://h1:1,h2:2/ic')).toBe('postgres://h1:1,h2:2/ic');
  });

  it('lists every spelling of a password, and removes them from any text', () => {
    const secrets = secretsOf('postgresql://alice:s%40cret@h/ic?password=other', { PGPASSWORD: 'fromenv' });
    expect(secrets).toEqual(expect.arrayContaining(['s%40cret', 's@cret', 'other', 'fromenv']));
    expect(redactText('failed for s@cret and s%40cret; password=abc', secrets)).toBe('failed for *** and ***; password=***');
    // The value only: a URL shown redacted keeps its later parameters.
    const url = 'postgresql://u@h/db?password=s3cr3t&sslmode=disable';
    expect(shownUrl(url, {})).toBe('postgresql://u@h/db?password=***&sslmode=disable');
  });

  it('adds parameters the URL lacks without overriding those it has, and replaces one on request', () => {
    expect(withDefaults('postgres://h/ic', { connect_timeout: '5' })).toBe('postgres://h/ic?connect_timeout=5');
    expect(withDefaults('postgres://h/ic?connect_timeout=9', { connect_timeout: '5', application_name: 'ic' })).toBe('postgres://h/ic?connect_timeout=9&application_name=ic');
    const url = withParameter('postgres://h/ic?options=-c%20a%3D1&sslmode=disable', 'options', '-c b=2');
    expect(url).toBe('postgres://h/ic?sslmode=disable&options=-c%20b%3D2');
    expect(parameterOf(url, 'options')).toBe('-c b=2');
    expect(parameterOf('postgres://h/ic?password=a+b', 'password')).toBe('a+b'); // libpq keeps + as a plus
  });
});
