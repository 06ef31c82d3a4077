// Patches to fengari's VM for Redis's Lua behaviour.
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';

/**
 * Speed patches to fengari 0.1.5's VM, applied to its source text as Node loads it.
 *
 * fengari's stack handling allocates: every call re-fills its frame with new nil TValues
 * (`adjust_top`) and every return deletes the slots above the new top (`moveresults`), so a
 * script of ~15 redis.call()s allocated hundreds of KB per run and spent a quarter of its time
 * there. The patched versions keep the TValue objects above the top and reset them to nil when
 * the top grows again. That is safe because fengari already treats every stack slot as owned by
 * the stack (it mutates them in place with setfrom/setnilvalue); the only objects shared with
 * anything else are open upvalues, and `luaF_close` swaps those out of the stack before a frame
 * or block is left (as C Lua must close them before their stack slots die).
 *
 * A patch that does not match the expected source is skipped: the VM then runs unpatched, slower
 * but correct.
 */
const LDO_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [
    `const adjust_top = function(L, newtop) {
    if (L.top < newtop) {
        while (L.top < newtop)
            L.stack[L.top++] = new lobject.TValue(LUA_TNIL, null);
    } else {
        while (L.top > newtop)
            delete L.stack[--L.top];
    }
};`,
    `const adjust_top = function(L, newtop) {
    const stack = L.stack;
    while (L.top < newtop) {
        const slot = stack[L.top];
        if (slot === undefined) stack[L.top] = new lobject.TValue(LUA_TNIL, null);
        else slot.setnilvalue();
        L.top++;
    }
    if (L.top > newtop) L.top = newtop;
};`,
  ],
  [
    `            for (let i=L.top; i>=(res + nres); i--)
                delete L.stack[i];
            L.top = res + nres;`,
    `            L.top = res + nres;`,
  ],
  [
    `    let newtop = res + wanted; /* top points after the last result */
    for (let i=L.top; i>=newtop; i--)
        delete L.stack[i];
    L.top = newtop;`,
    `    L.top = res + wanted; /* top points after the last result */`,
  ],
];

/** Patches for lstring.js: cheaper string copies and table-key hashes. */
const LSTRING_PATCHES: ReadonlyArray<readonly [string, string]> = [
  // Uint8Array.from goes through the iterator protocol; the constructor copies the bytes directly.
  [`    return luaS_bless(L, luastring_from(str));`, `    return luaS_bless(L, new Uint8Array(str));`],
  // The table key of a string was "|" plus two hex digits per byte, built one concatenation at a
  // time; "|" plus one latin1 char per byte is just as unique and built in one call.
  [
    `    let len = str.length;
    let s = "|";
    for (let i=0; i<len; i++)
        s += str[i].toString(16);
    return s;`,
    `    return "|" + Buffer.from(str.buffer, str.byteOffset, str.length).toString("latin1");`,
  ],
];

/** Lua tables: create the map of deleted keys only when a key is deleted (most never see one). */
const LTABLE_PATCHES: ReadonlyArray<readonly [string, string]> = [
  [`        this.dead_strong = new Map();`, `        this.dead_strong = void 0;`],
  [`    t.dead_strong.clear();`, `    t.dead_strong = void 0;`],
  [
    `            t.dead_strong.set(hash, e);`,
    `            if (!t.dead_strong) t.dead_strong = new Map();
            t.dead_strong.set(hash, e);`,
  ],
  [`|| table.dead_strong.get(hash);`, `|| (table.dead_strong && table.dead_strong.get(hash));`],
];

const PATCHES: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]> = [
  ['fengari/src/ldo.js', LDO_PATCHES],
  ['fengari/src/lstring.js', LSTRING_PATCHES],
  ['fengari/src/ltable.js', LTABLE_PATCHES],
];

type Loader = (module: Module, filename: string) => void;
interface CompilableModule extends Module {
  _compile(source: string, filename: string): void;
}

/**
 * Runs `load` (which requires fengari) with fengari's ldo.js, lstring.js and ltable.js patched
 * as they are read, keeping Node's own load order (the modules require each other in cycles).
 * A file whose source does not contain every expected snippet loads unpatched.
 * Returns what `load` returned and whether every file was patched.
 */
export function withPatchedFengari<T>(load: () => T): { value: T; patched: boolean } {
  const nodeRequire = createRequire(import.meta.url);
  const byFile = new Map(PATCHES.map(([path, patches]) => [nodeRequire.resolve(path), patches]));
  const alreadyLoaded = [...byFile.keys()].some((file) => nodeRequire.cache[file] !== undefined);
  const extensions = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;
  const original = extensions['.js']!;
  let patched = !alreadyLoaded;
  extensions['.js'] = (module, filename) => {
    const patches = byFile.get(filename);
    if (!patches) return original(module, filename);
    let source = readFileSync(filename, 'utf8');
    for (const [from, to] of patches) {
      if (!source.includes(from)) {
        patched = false;
        return original(module, filename);
      }
      source = source.replace(from, to);
    }
    (module as CompilableModule)._compile(source, filename);
  };
  try {
    return { value: load(), patched };
  } finally {
    extensions['.js'] = original;
  }
}
