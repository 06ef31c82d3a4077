// FakeRedisServer.start options.
import { describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../src/index.js';

describe('FakeRedisServer.start options', () => {
  it('refuses an unknown option name instead of ignoring it', async () => {
    await expect(FakeRedisServer.start({ flavor: 'valkey' } as never)).rejects.toThrow(/unknown option 'flavor'.*flavour/);
  });
});
