// Inlines `--@include name` lines of a Lua source from lua/includes/<name>.lua: each include once,
// nested includes first; a cycle or a missing include fails. Used by codegen.mjs and by the tests
// that run includes on their own (test/formats.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export class CodegenError extends Error {
  name = 'CodegenError';
}

/**
 * The flattened `text` of `file` (`text` defaults to the file's contents).
 * @param {string} luaDir the lua/ directory whose includes/ holds the fragments
 * @param {string} file the file's path, for messages and cycles
 * @param {string} [text]
 * @returns {string}
 */
export function flattenLua(luaDir, file, text = readFileSync(file, 'utf8')) {
  return flatten(luaDir, text, file, [file], new Set());
}

function flatten(luaDir, text, file, stack, included) {
  return text.replace(/^--@include ([\w-]+)[ \t]*$/gm, (_, name) => {
    const path = join(luaDir, 'includes', `${name}.lua`);
    if (stack.includes(path)) throw new CodegenError(`include cycle: ${[...stack, path].join(' -> ')}`);
    if (!existsSync(path)) throw new CodegenError(`${file}: missing include '${name}'`);
    if (included.has(path)) return `-- (include ${name}: already inlined)`;
    included.add(path);
    return flatten(luaDir, readFileSync(path, 'utf8'), path, [...stack, path], included).trimEnd();
  });
}
