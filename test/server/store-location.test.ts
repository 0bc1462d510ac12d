import { describe, expect, test } from 'vitest';
import { describeLocation, redactUrl, storeLocation } from '../../src/server/store/location.js';
import { openStore } from '../../src/server/store/open.js';
import { StoreUnavailableError } from '../../src/core/errors/index.js';

describe('where the store is', () => {
  test('--db is a postgres:// or postgresql:// URL, else a SQLite file; then FLC_DB, then the default', () => {
    const env = { XDG_DATA_HOME: '/data' };
    expect(storeLocation('postgres://u@h/db', env)).toEqual({ engine: 'postgres', url: 'postgres://u@h/db' });
    expect(storeLocation('PostgreSQL://u@h/db', env).engine).toBe('postgres');
    expect(storeLocation('/srv/flc.db', env)).toEqual({ engine: 'sqlite', file: '/srv/flc.db' });
    expect(storeLocation(undefined, { ...env, FLC_DB: '/old/flc.db' })).toEqual({
      engine: 'sqlite',
      file: '/old/flc.db',
    });
    expect(storeLocation(undefined, env)).toEqual({ engine: 'sqlite', file: '/data/flc/flc.db' });
  });

  test('the description names the engine and never shows a password', () => {
    expect(describeLocation({ engine: 'sqlite', file: '/srv/flc.db' })).toBe('SQLite /srv/flc.db');
    const described = describeLocation({
      engine: 'postgres',
      url: 'postgres://flc:s3cr%40t@db.internal:5433/flc?sslmode=require&password=other-secret',
    });
    expect(described).toBe('PostgreSQL postgres://flc:***@db.internal:5433/flc?sslmode=require&password=***');
    expect(described).not.toMatch(/s3cr|other-secret/);
    expect(redactUrl('not a url')).not.toContain('not a url');
  });

  test('a store that cannot be opened is named in the error, without its password', async () => {
    const opening = openStore('postgres://flc:hunter2@127.0.0.1:1/flc');
    await expect(opening).rejects.toBeInstanceOf(StoreUnavailableError);
    const message = await opening.catch((e: Error) => e.message);
    expect(message).toMatch(/^Cannot open the store \(PostgreSQL postgres:\/\/flc:\*\*\*@127\.0\.0\.1:1\/flc\)/);
    expect(message).toMatch(/ECONNREFUSED/);
    expect(message).not.toContain('hunter2');
  });
});
