// Names from Redis as a page shows them: look-alikes told apart, long ones cut with the whole name on demand.
import { count } from '../format.js';

/** Characters a name shows at most before it is cut (the whole name follows on demand). */
export const NAME_PREVIEW = 80;

// Invisible, format and direction-changing characters, line separators, and blanks that are not a
// plain space: shown as a marked code point, never raw.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\u3164\uffa0]|\u034f|\u115f|\u1160|\u17b4|\u17b5/u;

/** Scripts a look-alike comes from; others count as one script of their own. */
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Devanagari',
  'Thai',
  'Georgian',
  'Cherokee',
  'Hangul',
  'Han',
  'Hiragana',
  'Katakana',
].map((name) => [name, new RegExp(`\\p{Script=${name}}`, 'u')] as const);
/** Scripts that mix in one name as a matter of course: Japanese, Korean. */
const FAMILY: Record<string, string> = { Han: 'CJK', Hiragana: 'CJK', Katakana: 'CJK', Hangul: 'CJK' };

function scriptOf(ch: string): string | undefined {
  if (!/\p{L}/u.test(ch)) return undefined;
  for (const [name, pattern] of SCRIPTS) if (pattern.test(ch)) return FAMILY[name] ?? name;
  return 'Other';
}

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** One piece of a shown name: plain text, an escaped invisible character, or a marked look-alike. */
export type NamePart = { readonly text: string } | { readonly escape: string } | { readonly lookalike: string; readonly why: string };

/**
 * A name split for display: invisible characters become escapes (`U+202E`, drawn unlike any
 * text, so a name that spells `\u202E` with a backslash reads differently from one that holds
 * the character); letters of a script other than the name's main one (a Cyrillic "а" in a Latin
 * name) and characters that compatibility normalization (NFKC) changes (fullwidth, mathematical
 * or ligature forms) are marked as look-alikes.
 */
export function nameParts(value: string): NamePart[] {
  const chars = [...value];
  const tally = new Map<string, number>();
  for (const ch of chars) {
    const script = scriptOf(ch);
    if (script) tally.set(script, (tally.get(script) ?? 0) + 1);
  }
  // The main script: the most frequent one (Latin on a tie).
  let main: string | undefined;
  for (const [script, n] of tally) if (!main || n > tally.get(main)! || (n === tally.get(main) && script === 'Latin')) main = script;
  const mixed = tally.size > 1;
  const parts: NamePart[] = [];
  let run = '';
  const flush = () => {
    if (run) parts.push({ text: run });
    run = '';
  };
  for (const ch of chars) {
    if (INVISIBLE.test(ch) && ch !== ' ') {
      flush();
      parts.push({ escape: codePoint(ch) });
      continue;
    }
    const script = scriptOf(ch);
    const foreign = mixed && script !== undefined && script !== main;
    const compatible = ch.normalize('NFKC') !== ch;
    if (foreign || compatible) {
      flush();
      parts.push({
        lookalike: ch,
        why: `${codePoint(ch)}${foreign ? `, ${script} in a ${main} name` : ''}${compatible ? `, a compatibility form of "${ch.normalize('NFKC')}"` : ''}`,
      });
      continue;
    }
    run += ch;
  }
  flush();
  return parts;
}

function Parts({ parts }: { parts: readonly NamePart[] }) {
  return (
    <>
      {parts.map((p) =>
        'text' in p ? (
          p.text
        ) : 'escape' in p ? (
          <span class="esc" title={`${p.escape}: an invisible or direction-changing character`}>
            {p.escape}
          </span>
        ) : (
          <mark class="lookalike" title={p.why}>
            {p.lookalike}
          </mark>
        ),
      )}
    </>
  );
}

/**
 * A name (queue, stream, group, consumer, field, reason) on a page: escapes and look-alikes
 * marked; past `max` characters cut, with the whole name in a closed disclosure after it
 * (`full` false leaves it out: in a heading or a breadcrumb, where the page shows it elsewhere).
 * With `href` the (cut) name is a link and the disclosure stays outside it.
 */
export function Name({ value, max = NAME_PREVIEW, href, full = true }: { value: string; max?: number; href?: string; full?: boolean }) {
  const chars = [...value];
  const cut = chars.length > max;
  const shown = (
    <>
      <Parts parts={nameParts(cut ? chars.slice(0, max).join('') : value)} />
      {cut ? <span class="ellipsis">…</span> : null}
    </>
  );
  return (
    <>
      {href ? (
        <a class="name" href={href}>
          {shown}
        </a>
      ) : (
        <span class="name">{shown}</span>
      )}
      {cut && full ? (
        <details class="full-name">
          <summary>all {count(chars.length)} characters</summary>
          <div class="full">
            <Parts parts={nameParts(value)} />
          </div>
        </details>
      ) : null}
    </>
  );
}
