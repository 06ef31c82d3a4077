// Inlines `--@include name` lines of a Lua source from lua/includes/<name>.lua (each include once,
// nested includes first; a cycle or a missing include fails), then drops the top-level local
// functions and one-line constants the script never uses. Used by codegen.mjs and by the tests
// that run includes on their own (the testing package's formats conformance test).
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
  return withoutUnused(flatten(luaDir, text, file, [file], new Set()), file);
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

/**
 * Redis runs a script's whole body on every call, so every `local function` it defines costs a
 * closure per call (about 0.1 µs each, measured): an include's functions that a script does not
 * use are dropped. A top-level function starts with `local function name(` in the first column
 * and ends at the next line that is exactly `end`; a constant is one line, `local NAME = ...`
 * with no call in its value.
 * Names are looked for in code only (not in comments); anything still named stays.
 */
function withoutUnused(source, file) {
  let lines = source.split('\n');
  for (;;) {
    const blocks = topLevelDefinitions(lines, file);
    const code = codeOnly(lines);
    const unused = blocks.filter(({ name, from, to }) => {
      const outside = code
        .slice(0, from)
        .concat(code.slice(to + 1))
        .join('\n');
      return !new RegExp(`(?<![\\w.:])${name}(?!\\w)`).test(outside);
    });
    if (unused.length === 0) return lines.join('\n');
    const drop = new Set(unused.flatMap(({ from, to }) => Array.from({ length: to - from + 1 }, (_, i) => from + i)));
    lines = lines.filter((_, i) => !drop.has(i));
  }
}

/** The top-level `local function` blocks and one-line `local` constants: { name, from, to } (line indexes). */
function topLevelDefinitions(lines, file) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const fn = /^local function ([A-Za-z_][\w]*)\(/.exec(lines[i]);
    if (fn) {
      let end = i;
      if (!/\bend\s*$/.test(lines[i]) || /\bfunction\b.*\bfunction\b/.test(lines[i])) {
        end = lines.findIndex((line, j) => j > i && line === 'end');
        const next = lines.findIndex((line, j) => j > i && /^local function /.test(line));
        if (end < 0 || (next >= 0 && next < end))
          throw new CodegenError(`${file}: local function ${fn[1]} has no 'end' in the first column before the next one`);
      }
      out.push({ name: fn[1], from: i, to: end });
      i = end;
      continue;
    }
    // A constant: a value without calls (no side effect is lost with it), on one line.
    const constant = /^local ([A-Za-z_][\w]*) = ([^(]*)$/.exec(lines[i]);
    if (constant && balanced(constant[2])) out.push({ name: constant[1], from: i, to: i });
  }
  return out;
}

const balanced = (text) => [...text].reduce((depth, ch) => depth + ('{(['.includes(ch) ? 1 : ')]}'.includes(ch) ? -1 : 0), 0) === 0;

/** The lines with block comments and whole-line comments blanked (a trailing comment stays: it can only keep a name). */
function codeOnly(lines) {
  const out = [];
  let inBlock = false;
  for (const line of lines) {
    if (inBlock) {
      if (line.includes(']]')) inBlock = false;
      out.push('');
    } else if (/^\s*--\[\[/.test(line)) {
      inBlock = !line.includes(']]');
      out.push('');
    } else {
      out.push(/^\s*--/.test(line) ? '' : line);
    }
  }
  return out;
}
