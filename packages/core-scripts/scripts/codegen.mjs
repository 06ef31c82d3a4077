// Generates the TypeScript side of the Lua scripts: flattens lua/*.lua (resolving `--@include name`
// from lua/includes/, each inlined once, nested includes first) and reads each script's header into
//   src/generated/scripts.ts  the registry: { name, numberOfKeys, binaryReply, sha1, source } per script
//   src/generated/replies.ts  per script the reply type and its decoder, read from its `Reply` line,
//                             and the union of the RESPIRE_* error codes the `Errors` lines declare
//   src/generated/calls.ts    one typed wrapper per script, taking KEYS and ARGV by the names its
//                             header gives them and returning the decoded reply, so a reordered or
//                             renamed argument, or a changed reply, fails the build
// `--check` fails when a committed file is stale, instead of writing it.
//
// The header (the opening --[[ ]] block) names every key and argument, as `name: description` or by
// a description that is a single identifier:
//   KEYS[1]  stream: source stream              (stream)
//   KEYS[2]  deadlines                          (sorted set)
//   ARGV[2..] receipts: entry ID, receipt, ...   (a variadic tail: only the last ARGV)
//   KEYS[2..] deduplicationKeys                  (a variadic tail of keys: only the last KEYS, never KEYS[1])
// Its `Reply` line starts with the reply's type; prose may follow the type, on that line and the next:
//   int | flag | string | bytes     an integer; 1 or 0 as a boolean; text (UTF-8); bytes (a Buffer)
//   'a' | 'b'                        one of these strings
//   1 done | 0 skipped | -1 stale    an integer code, decoded to its name ('done', 'skipped', 'stale')
//   [T]                              an array of T
//   { name: T, name: T }             a table read by position into an object with these properties;
//                                    '' and 0 in place of an element mark one that is not read
//   { ..., ...name: { a: T, b: T } } the rest of the table, in groups of that many, as an array
//   { 1 done, name: T } | { 0 missing, '' }
//                                    a table whose first element is a code: an object whose `status`
//                                    is the code's name (every variant of such a union has one)
//   e.g.  Reply    { deadLettered: int, ...entries: { id: string, payload: bytes, deliveryCount: int } }
// A reply with bytes in it is always read in binary mode (`binaryReply`); a decoder throws a
// RespireServerError for a reply of another shape. The `Errors` line names each RESPIRE_* code the
// script may raise; every RESPIRE_* code raised anywhere in lua/ must be declared by some header.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodegenError, flattenLua } from './flatten.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const luaDir = join(root, 'lua');
const registryFile = join(root, 'src', 'generated', 'scripts.ts');
const repliesFile = join(root, 'src', 'generated', 'replies.ts');
const callsFile = join(root, 'src', 'generated', 'calls.ts');

const HEADER_LINE = /^(KEYS|ARGV)\[(\d+)(\.\.)?\]\s+(.*)$/;
// `name: description`, or a description that is one identifier (then it is the name too).
const NAMED = /^([a-z][A-Za-z0-9]*)(?::\s+(.*)|\s*(?:\(.*)?)$/;
const ERROR_CODE = /\bRESPIRE_[A-Z_]*[A-Z]\b/g;

/** The KEYS, ARGV, reply type and error codes of a script's header. */
function parseHeader(text, name) {
  const header = /^--\[\[([\s\S]*?)\]\]/.exec(text)?.[1];
  if (header === undefined) throw new CodegenError(`${name}.lua: no --[[ ]] header block at the top`);
  const keys = [];
  const argv = [];
  for (const line of header.split('\n')) {
    const m = HEADER_LINE.exec(line);
    if (!m) continue;
    const [, kind, index, rest, text] = m;
    const named = NAMED.exec(text);
    if (!named) {
      throw new CodegenError(`${name}.lua: '${line.trim()}' names no argument; write '${kind}[${index}${rest ?? ''}]  someName: ${text}'`);
    }
    const list = kind === 'KEYS' ? keys : argv;
    if (Number(index) !== list.length + 1) throw new CodegenError(`${name}.lua: ${kind}[${index}] is out of order (expected ${kind}[${list.length + 1}])`);
    if (list.at(-1)?.rest) throw new CodegenError(`${name}.lua: only the last ${kind} may be variadic`);
    if (rest && kind === 'KEYS' && list.length === 0) throw new CodegenError(`${name}.lua: KEYS[1] cannot be variadic (it routes the call)`);
    list.push({ name: named[1], index: Number(index), rest: Boolean(rest), doc: `${kind}[${index}${rest ?? ''}] ${(named[2] ?? text).replace(/\s+/g, ' ')}` });
  }
  if (keys.length === 0) throw new CodegenError(`${name}.lua: the header lists no KEYS[i]`);
  const seen = new Set();
  for (const { name: field } of [...keys, ...argv]) {
    if (seen.has(field)) throw new CodegenError(`${name}.lua: the name '${field}' is used twice`);
    seen.add(field);
  }
  const replyAt = /^Reply[ \t]+/m.exec(header);
  if (!replyAt) throw new CodegenError(`${name}.lua: the header has no 'Reply' line naming the reply's type`);
  const { type: reply, text: replyText } = parseReplyType(header.slice(replyAt.index + replyAt[0].length), name);
  const errorsLine = /^Errors[ \t]+(.*(?:\n[ \t]+.*)*)/m.exec(header)?.[1] ?? '';
  const errors = [...new Set(errorsLine.match(ERROR_CODE) ?? [])];
  return { keys, argv, reply, replyText, errors, summary: (/^\s*[\w-]+:\s*(.*)$/m.exec(header)?.[1] ?? name).replace(/\.$/, '') };
}

// ---------------------------------------------------------------- the Reply grammar

/**
 * Parses the type at the start of `text` (the rest of the header after `Reply`); what follows the
 * type is prose. Nodes: { kind: 'scalar', name } | { kind: 'strings', values } | { kind: 'codes',
 * codes: [{ code, name }] } | { kind: 'array', of } | { kind: 'table', tag?, items, rest? } |
 * { kind: 'tagged', variants: [table] }. Table items: { name, type } or { skip: true }.
 */
function parseReplyType(text, script) {
  let at = 0;
  const fail = (what) => {
    const near = text.slice(at, at + 30).split('\n')[0];
    throw new CodegenError(`${script}.lua: Reply: ${what} at '${near}'`);
  };
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  const peek = (re) => {
    skipSpace();
    const m = re.exec(text.slice(at));
    return m && m.index === 0 ? m[0] : undefined;
  };
  const take = (re, what) => {
    const token = peek(re);
    if (token === undefined) fail(`expected ${what}`);
    at += token.length;
    return token;
  };
  const NAME = /^[A-Za-z][A-Za-z0-9]*/;
  const INT = /^-?\d+/;
  const STRING = /^'[^'\n]*'/;
  const punct = (p) => new RegExp(`^${p.replace(/[[\]{}|.]/g, '\\$&')}`);

  const codeOf = () => {
    const code = Number(take(INT, 'an integer code'));
    return { code, name: take(NAME, 'the name of the code') };
  };
  const table = () => {
    take(punct('{'), "'{'");
    const node = { kind: 'table', items: [] };
    if (peek(INT) !== undefined) {
      const before = at;
      take(INT, 'a code');
      const isTag = peek(NAME) !== undefined;
      at = before;
      if (isTag) {
        node.tag = codeOf();
        if (peek(punct('}')) === undefined) take(punct(','), "','");
      }
    }
    while (peek(punct('}')) === undefined) {
      if (node.rest) fail("'...name' must be the table's last element");
      if (peek(punct('...')) !== undefined) {
        take(punct('...'), "'...'");
        const name = take(NAME, 'a name');
        take(punct(':'), "':'");
        const group = table();
        if (group.tag || group.rest) fail('a group of the rest of a table has no code and no rest of its own');
        node.rest = { name, group };
      } else if (peek(STRING) !== undefined || peek(INT) !== undefined) {
        take(peek(STRING) !== undefined ? STRING : INT, 'a placeholder');
        node.items.push({ skip: true });
      } else {
        const name = take(NAME, 'a name');
        take(punct(':'), "':' after a name");
        node.items.push({ name, type: type() });
      }
      if (peek(punct('}')) === undefined) take(punct(','), "',' or '}'");
    }
    take(punct('}'), "'}'");
    const names = [...node.items.filter((i) => !i.skip).map((i) => i.name), ...(node.rest ? [node.rest.name] : [])];
    if (node.tag) names.push('status');
    if (new Set(names).size !== names.length) fail('a table uses a name twice (a tagged table has `status` already)');
    return node;
  };
  const variant = () => {
    if (peek(punct('[')) !== undefined) {
      take(punct('['), "'['");
      const of = type();
      take(punct(']'), "']'");
      return { kind: 'array', of };
    }
    if (peek(punct('{')) !== undefined) return table();
    if (peek(STRING) !== undefined) return { kind: 'strings', values: [take(STRING, 'a string').slice(1, -1)] };
    if (peek(INT) !== undefined) return { kind: 'codes', codes: [codeOf()] };
    const name = take(NAME, 'a type');
    if (!['int', 'flag', 'string', 'bytes'].includes(name)) fail(`unknown type '${name}' (int, flag, string, bytes)`);
    return { kind: 'scalar', name };
  };
  const type = () => {
    const variants = [variant()];
    while (peek(punct('|')) !== undefined) {
      take(punct('|'), "'|'");
      variants.push(variant());
    }
    if (variants.length === 1) return variants[0];
    if (variants.every((v) => v.kind === 'codes')) return { kind: 'codes', codes: variants.flatMap((v) => v.codes) };
    if (variants.every((v) => v.kind === 'strings')) return { kind: 'strings', values: variants.flatMap((v) => v.values) };
    if (variants.every((v) => v.kind === 'table' && v.tag)) return { kind: 'tagged', variants };
    return fail('a union is of codes, of strings, or of tables that each open with a code');
  };
  const result = type();
  const end = at;
  const codes = result.kind === 'codes' ? result.codes : result.kind === 'tagged' ? result.variants.map((v) => v.tag) : [];
  if (new Set(codes.map((c) => c.code)).size !== codes.length) fail('a code is used twice');
  return { type: result, text: text.slice(0, end) };
}

/** True when decoding the type needs the reply's bulk strings as bytes. */
const hasBytes = (node) => {
  switch (node.kind) {
    case 'scalar':
      return node.name === 'bytes';
    case 'array':
      return hasBytes(node.of);
    case 'table':
      return node.items.some((i) => !i.skip && hasBytes(i.type)) || (node.rest !== undefined && hasBytes(node.rest.group));
    case 'tagged':
      return node.variants.some(hasBytes);
    default:
      return false;
  }
};

const SCALAR_TS = { int: 'number', flag: 'boolean', string: 'string', bytes: 'Buffer' };

/** The TypeScript type of a reply node. */
function tsType(node) {
  switch (node.kind) {
    case 'scalar':
      return SCALAR_TS[node.name];
    case 'strings':
      return node.values.map((v) => JSON.stringify(v)).join(' | ');
    case 'codes':
      return node.codes.map((c) => JSON.stringify(c.name)).join(' | ');
    case 'array': {
      const of = tsType(node.of);
      return /[|]/.test(of) ? `(${of})[]` : `${of}[]`;
    }
    case 'table': {
      const props = [];
      if (node.tag) props.push(`readonly status: ${JSON.stringify(node.tag.name)}`);
      for (const item of node.items) if (!item.skip) props.push(`readonly ${item.name}: ${tsType(item.type)}`);
      if (node.rest) props.push(`readonly ${node.rest.name}: ${tsType(node.rest.group)}[]`);
      return `{ ${props.join('; ')} }`;
    }
    case 'tagged':
      return node.variants.map(tsType).join(' | ');
  }
  throw new CodegenError(`unknown node ${node.kind}`);
}

/** Helper decoders emitted so far, by their text with the name left out: an identical one is reused, not emitted twice. */
const helperByText = new Map();

/** Files `text` (a helper named `fn`) into `out[slot]`, or reuses an identical helper; returns the name to call. */
function fileHelper(out, slot, fn, text) {
  const key = text.replace(`function ${fn}(`, 'function (');
  const existing = helperByText.get(key);
  if (existing !== undefined && slot !== 0) {
    out[slot] = '';
    return existing;
  }
  helperByText.set(key, fn);
  out[slot] = text;
  return fn;
}

/**
 * Emits decoder functions for a reply node into `out` (one per table, array, code or string union,
 * named `${base}${n}`), and returns the expression that decodes `value` (an identifier).
 */
function decoderFor(node, value, out, base) {
  switch (node.kind) {
    case 'scalar':
      return `d.${node.name}(${value}, operation)`;
    case 'strings': {
      const slot = out.push('') - 1;
      const fn = fileHelper(
        out,
        slot,
        `${base}${slot}`,
        `function ${base}${slot}(value: unknown, operation: string): ${tsType(node)} {\n` +
          `  const text = d.string(value, operation);\n` +
          `  if (${node.values.map((v) => `text === ${JSON.stringify(v)}`).join(' || ')}) return text;\n` +
          `  return d.unexpected(operation, 'one of ${node.values.join(', ')}', value);\n}\n`,
      );
      return `${fn}(${value}, operation)`;
    }
    case 'codes': {
      const slot = out.push('') - 1;
      const cases = node.codes.map((c) => `    case ${c.code}:\n      return ${JSON.stringify(c.name)};\n`).join('');
      const fn = fileHelper(
        out,
        slot,
        `${base}${slot}`,
        `function ${base}${slot}(value: unknown, operation: string): ${tsType(node)} {\n` +
          `  switch (d.int(value, operation)) {\n${cases}` +
          `    default:\n      return d.unexpected(operation, 'one of the codes ${node.codes.map((c) => c.code).join(', ')}', value);\n  }\n}\n`,
      );
      return `${fn}(${value}, operation)`;
    }
    case 'array': {
      const slot = out.push('') - 1; // the name is taken before nested decoders take theirs
      const fn = `${base}${slot}`;
      const element = decoderFor(node.of, 'element', out, base);
      const name = fileHelper(
        out,
        slot,
        fn,
        `function ${fn}(value: unknown, operation: string): ${tsType(node)} {\n` +
          `  const list = d.array(value, operation);\n` +
          `  const out: ${tsType(node)} = [];\n` +
          `  for (const element of list) out.push(${element});\n` +
          `  return out;\n}\n`,
      );
      return `${name}(${value}, operation)`;
    }
    case 'table': {
      const slot = out.push('') - 1;
      const fn = `${base}${slot}`;
      const offset = node.tag ? 1 : 0;
      const size = offset + node.items.length;
      const props = [];
      if (node.tag) props.push(`status: ${JSON.stringify(node.tag.name)}`);
      node.items.forEach((item, i) => {
        if (!item.skip) props.push(`${item.name}: ${decoderFor(item.type, `t[${offset + i}]`, out, base)}`);
      });
      let body;
      if (node.rest) {
        const group = node.rest.group;
        const width = group.items.length;
        const fields = group.items
          .map((item, i) => (item.skip ? undefined : `${item.name}: ${decoderFor(item.type, i === 0 ? 't[i]' : `t[i + ${i}]`, out, base)}`))
          .filter(Boolean);
        body =
          `  const t = d.table(value, ${size}, operation);\n` +
          `  if ((t.length - ${size}) % ${width} !== 0) return d.unexpected(operation, 'groups of ${width} after element ${size}', value);\n` +
          `  const ${node.rest.name}: ${tsType(group)}[] = [];\n` +
          `  for (let i = ${size}; i < t.length; i += ${width}) ${node.rest.name}.push({ ${fields.join(', ')} });\n` +
          `  return { ${[...props, node.rest.name].join(', ')} };\n`;
      } else if (props.length > (node.tag ? 1 : 0)) {
        body = `  const t = d.table(value, ${size}, operation);\n  return { ${props.join(', ')} };\n`;
      } else {
        body = `  d.table(value, ${size}, operation);\n  return { ${props.join(', ')} };\n`;
      }
      const name = fileHelper(out, slot, fn, `function ${fn}(value: unknown, operation: string): ${tsType(node)} {\n${body}}\n`);
      return `${name}(${value}, operation)`;
    }
    case 'tagged': {
      const slot = out.push('') - 1;
      const fn = `${base}${slot}`;
      const cases = node.variants.map((v) => `    case ${v.tag.code}:\n      return ${decoderFor(v, 'value', out, base)};\n`).join('');
      const name = fileHelper(
        out,
        slot,
        fn,
        `function ${fn}(value: unknown, operation: string): ${tsType(node)} {\n` +
          `  switch (d.int(d.array(value, operation)[0], operation)) {\n${cases}` +
          `    default:\n      return d.unexpected(operation, 'a table opening with one of the codes ${node.variants.map((v) => v.tag.code).join(', ')}', value);\n  }\n}\n`,
      );
      return `${name}(${value}, operation)`;
    }
  }
  throw new CodegenError(`unknown node ${node.kind}`);
}

// ---------------------------------------------------------------- the scripts

/**
 * Fails when the flattened script names a `respire_*` function or constant that none of its
 * includes defines: Lua would only find out at run time, on the path that calls it.
 */
function checkDefined(source, name) {
  const code = source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');
  const defined = new Set([...code.matchAll(/\blocal (?:function )?(respire_\w+)/g)].map((m) => m[1]));
  for (const [used] of code.matchAll(/\brespire_\w+/g)) {
    if (!defined.has(used)) throw new CodegenError(`${name}.lua: ${used} is used but no include defines it (a missing --@include?)`);
  }
}

const scripts = readdirSync(luaDir)
  .filter((f) => f.endsWith('.lua'))
  .sort()
  .map((f) => {
    const file = join(luaDir, f);
    const name = f.replace(/\.lua$/, '');
    const source = flattenLua(luaDir, file);
    checkDefined(source, name);
    const header = parseHeader(readFileSync(file, 'utf8'), name);
    return { name, header, source, sha1: createHash('sha1').update(source).digest('hex') };
  });

// Every RESPIRE_* code a script can raise is declared by some header's Errors line.
const declared = new Set(scripts.flatMap((s) => s.header.errors));
const luaFiles = [
  ...readdirSync(luaDir).map((f) => join(luaDir, f)),
  ...(existsSync(join(luaDir, 'includes')) ? readdirSync(join(luaDir, 'includes')).map((f) => join(luaDir, 'includes', f)) : []),
];
for (const file of luaFiles.filter((f) => f.endsWith('.lua'))) {
  const code = readFileSync(file, 'utf8').replace(/^--\[\[[\s\S]*?\]\]/, '');
  for (const [, raised] of code.matchAll(/err\s*=\s*'(RESPIRE_[A-Z_]*[A-Z])\b/g)) {
    if (!declared.has(raised)) throw new CodegenError(`${file.slice(root.length + 1)} raises ${raised}, which no script's Errors line declares`);
  }
}

const camel = (name) => name.replace(/-(\w)/g, (_, c) => c.toUpperCase());
const pascal = (name) => camel(name).replace(/^\w/, (c) => c.toUpperCase());
const banner = '// Generated by scripts/codegen.mjs from lua/*.lua. Do not edit; run `pnpm codegen`.\n';
const oneLine = (text) => text.replace(/\*\//g, '* /').replace(/\s+/g, ' ').trim();

let registry = banner + "import type { ScriptDefinition } from '../script.js';\n\n";
for (const s of scripts) {
  registry += `export const ${camel(s.name)}: ScriptDefinition = {\n`;
  const variadic = s.header.keys.at(-1)?.rest === true;
  registry += `  name: ${JSON.stringify(s.name)},\n  numberOfKeys: ${s.header.keys.length - (variadic ? 1 : 0)},\n${variadic ? '  variadicKeys: true,\n' : ''}  binaryReply: ${hasBytes(s.header.reply)},\n`;
  registry += `  sha1: ${JSON.stringify(s.sha1)},\n  source: ${JSON.stringify(s.source)},\n};\n\n`;
}
registry += `export const allScripts: readonly ScriptDefinition[] = [${scripts.map((s) => camel(s.name)).join(', ')}];\n`;

const codes = [...declared].sort();
let replies = banner + "import * as d from '../script-replies.js';\n\n";
replies += '/** Every `RESPIRE_*` error code a script declares in its header (`Errors`); `classify.ts` maps each to its error class. */\n';
replies += `export const SCRIPT_ERROR_CODES = [${codes.map((c) => JSON.stringify(c)).join(', ')}] as const;\n\n`;
replies += '/** A `RESPIRE_*` error code a script declares. */\nexport type ScriptErrorCode = (typeof SCRIPT_ERROR_CODES)[number];\n';
/** The reply type already generated for each `Reply` text: a script with the same reply reuses it. */
const generatedFor = new Map();
for (const s of scripts) {
  const type = `${pascal(s.name)}Reply`;
  const base = `${camel(s.name)}Reply`;
  const same = generatedFor.get(oneLine(s.header.replyText));
  if (same !== undefined) {
    replies += `\n/** The reply of \`${s.name}\`: the same as \`${same.name}\`'s. */\nexport type ${type} = ${same.type};\n\n`;
    replies += `/** Decodes a reply of \`${s.name}\` (as {@link decode${same.type}}). */\n`;
    replies += `export function decode${type}(value: unknown, operation = ${JSON.stringify(s.name)}): ${type} {\n  return decode${same.type}(value, operation);\n}\n`;
    continue;
  }
  generatedFor.set(oneLine(s.header.replyText), { name: s.name, type });
  const helpers = [];
  const expression = decoderFor(s.header.reply, 'reply', helpers, base);
  const doc =
    `/**\n * Decodes a reply of \`${s.name}\`; \`operation\` names the call in errors.\n` +
    ` * @throws {@link RespireServerError} for a reply of another shape.\n */\n`;
  replies += `\n/** The reply of \`${s.name}\`: \`${oneLine(s.header.replyText)}\`, as its header's \`Reply\` line declares it. */\n`;
  replies += `export type ${type} = ${tsType(s.header.reply)};\n\n`;
  if (helpers.length === 0) {
    // A scalar reply: no helper of its own.
    replies += `${doc}export function decode${type}(reply: unknown, operation = ${JSON.stringify(s.name)}): ${type} {\n  return ${expression};\n}\n`;
  } else {
    // The root helper is the exported decoder.
    const root = helpers[0].replace(
      /^function \w+\(value: unknown, operation: string\): [^\n]*\{\n/,
      `${doc}export function decode${type}(value: unknown, operation = ${JSON.stringify(s.name)}): ${type} {\n`,
    );
    replies += [root, ...helpers.slice(1)].filter((text) => text !== '').join('\n');
  }
}

let calls = banner;
calls += "import { runScript, type ScriptArg, type ScriptCallOptions } from '../runner.js';\n";
calls += "import type { CommandTarget } from '../transport.js';\n";
calls += "import * as replies from './replies.js';\n";
calls += "import * as scripts from './scripts.js';\n";
for (const s of scripts) {
  const { keys, argv, summary } = s.header;
  const type = `${pascal(s.name)}Reply`;
  calls += `\n/** KEYS and ARGV of \`${s.name}\`, named as in its header. */\nexport interface ${pascal(s.name)}Args {\n`;
  for (const k of keys) calls += `  /** ${oneLine(k.doc)} */\n  readonly ${k.name}: ${k.rest ? 'readonly string[]' : 'string'};\n`;
  for (const a of argv) calls += `  /** ${oneLine(a.doc)} */\n  readonly ${a.name}: ${a.rest ? 'readonly ScriptArg[]' : 'ScriptArg'};\n`;
  calls += '}\n\n';
  calls += `/** Runs \`${s.name}\` (${oneLine(summary)}) through {@link runScript} and decodes its reply. */\n`;
  calls += `export async function ${camel(s.name)}(target: CommandTarget, args: ${pascal(s.name)}Args, options?: ScriptCallOptions): Promise<replies.${type}> {\n`;
  const keyList = keys.map((k) => (k.rest ? `...args.${k.name}` : `args.${k.name}`)).join(', ');
  const argList = argv.map((a) => (a.rest ? `...args.${a.name}` : `args.${a.name}`)).join(', ');
  // A literal, not a spread of `options`: this runs on every call of the hot path.
  const runOptions = hasBytes(s.header.reply) ? '{ operation: options?.operation, noScriptTarget: options?.noScriptTarget, binary: true }' : 'options';
  calls += `  const reply = await runScript(target, scripts.${camel(s.name)}, [${keyList}], [${argList}], ${runOptions});\n`;
  calls += `  return replies.decode${type}(reply, options?.operation);\n}\n`;
}

const outputs = [
  [registryFile, registry],
  [repliesFile, replies],
  [callsFile, calls],
];
if (process.argv.includes('--check')) {
  for (const [file, text] of outputs) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (current !== text) {
      console.error(`${file.slice(root.length + 1)} is stale: run \`pnpm codegen\` and commit the result.`);
      process.exit(1);
    }
  }
} else {
  for (const [file, text] of outputs) writeFileSync(file, text);
  console.log(
    `wrote ${scripts.length} scripts to src/generated/scripts.ts, their replies to src/generated/replies.ts and their wrappers to src/generated/calls.ts`,
  );
}
