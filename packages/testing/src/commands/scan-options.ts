// The cursor and options of the SCAN family (SCAN, ZSCAN): MATCH, COUNT and, where allowed, TYPE.
import { CommandError, fail } from '../reply.js';
import { is, parseInteger } from './types.js';

export interface ScanOptions {
  readonly cursor: number;
  readonly pattern: string | undefined;
  readonly count: number;
  readonly type: string | undefined;
}

/** Parses `cursor [MATCH pattern] [COUNT n] [TYPE t]` as Redis does (TYPE only when `withType`). */
export function scanOptions(cursorText: string, options: readonly string[], withType: boolean): ScanOptions {
  if (!/^\d+$/.test(cursorText)) throw new CommandError('ERR invalid cursor');
  let pattern: string | undefined;
  let count = 10;
  let type: string | undefined;
  for (let i = 0; i < options.length; i += 2) {
    const value = options[i + 1];
    if (value === undefined) fail();
    if (is(options[i], 'MATCH')) pattern = value;
    else if (is(options[i], 'COUNT')) {
      count = parseInteger(value);
      if (count < 1) fail();
    } else if (withType && is(options[i], 'TYPE')) type = value.toLowerCase();
    else fail();
  }
  return { cursor: Number(cursorText), pattern, count, type };
}
