// How the server's (and the driver's) errors become ic's codes: a socket the server closed under a write
// (seen as `write EPIPE` in a `coord events --consumer` during `pg_ctl restart -m immediate`) is a lost
// connection (BUSY, 75), never INTERNAL (70).
import { describe, expect, it } from 'vitest';
import { translateServerError } from '../../src/store/postgres/errors';

describe('translateServerError', () => {
  it.each(['EPIPE', 'ECONNRESET'])('a socket closed by the server (%s) is BUSY: try again', (code) => {
    const error = translateServerError({ sqlstate: code, message: `write ${code}` }, 'postgresql:///x');
    expect(error.code).toBe('BUSY');
    expect(error.message).toContain('was lost');
  });

  it('a statement the server refused for another reason stays INTERNAL', () => {
    expect(translateServerError({ sqlstate: '42601', message: 'syntax error' }, 'postgresql:///x').code).toBe('INTERNAL');
  });
});
