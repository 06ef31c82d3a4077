// Integer literals rewritten as floats so fengari's arithmetic matches Redis's Lua 5.1.
/**
 * Lua 5.1 (Redis) has only doubles; fengari (Lua 5.3) has 32-bit integers, so `65536 * 65536`
 * would wrap to 0. Rewriting every integer literal to a float literal (`1` → `1.0`, `0x10` →
 * `16.0`) makes script arithmetic float arithmetic, as in Redis. Strings and comments are kept.
 */
export function floatLiterals(source: string): string {
  let out = '';
  let i = 0;
  const n = source.length;
  const longBracket = (at: number): number => {
    // Returns the level of a long bracket `[==[` at `at`, or -1.
    if (source[at] !== '[') return -1;
    let j = at + 1;
    while (source[j] === '=') j++;
    return source[j] === '[' ? j - at - 1 : -1;
  };
  while (i < n) {
    const c = source[i]!;
    if (c === '-' && source[i + 1] === '-') {
      const level = longBracket(i + 2);
      let end: number;
      if (level >= 0) {
        const close = `]${'='.repeat(level)}]`;
        const at = source.indexOf(close, i + 4 + level);
        end = at < 0 ? n : at + close.length;
      } else {
        const at = source.indexOf('\n', i);
        end = at < 0 ? n : at;
      }
      out += source.slice(i, end);
      i = end;
    } else if (c === '[' && longBracket(i) >= 0) {
      const level = longBracket(i);
      const close = `]${'='.repeat(level)}]`;
      const at = source.indexOf(close, i + 2 + level);
      const end = at < 0 ? n : at + close.length;
      out += source.slice(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(source[j]!)) j++;
      out += source.slice(i, j);
      i = j;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const hex = /^0[xX][0-9a-fA-F]+/.exec(source.slice(i, i + 40));
      if (hex && !/[.pP]/.test(source[i + hex[0].length] ?? '')) {
        out += `${Number(hex[0]).toString()}.0`;
        i += hex[0].length;
        continue;
      }
      const m = /^(?:0[xX][0-9a-fA-F.]*(?:[pP][+-]?\d+)?|\d*\.?\d*(?:[eE][+-]?\d+)?)/.exec(source.slice(i, i + 400))!;
      const literal = m[0] || c;
      out += /^\d+$/.test(literal) ? `${literal}.0` : literal;
      i += literal.length;
    } else if (c === '.' && source[i + 1] === '.') {
      // `..` or `...`: keep as is so `1 ..` style concatenations are not glued.
      let j = i;
      while (source[j] === '.') j++;
      out += source.slice(i, j);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
