// Unit tests of the CLI's helpers that need no server.
import { describe, expect, it } from 'vitest';
import { defaultActorName } from '../src/cli/context.js';

describe('the CLI default actor', () => {
  it('is the OS user; without a passwd entry (a container UID) it falls back to $USER, $LOGNAME, then uid:<n>', () => {
    expect(defaultActorName(() => ({ username: 'alice' }), {}, 1000)).toBe('alice');
    const missing = () => {
      throw Object.assign(new Error('uv_os_get_passwd returned ENOENT'), { code: 'ENOENT' });
    };
    expect(defaultActorName(missing, { USER: 'bob' }, 1000)).toBe('bob');
    expect(defaultActorName(missing, { LOGNAME: 'carol' }, 1000)).toBe('carol');
    expect(defaultActorName(missing, {}, 54321)).toBe('uid:54321');
    expect(defaultActorName(missing, {}, undefined)).toBe('unknown');
  });
});
