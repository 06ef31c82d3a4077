// Payloads, stream fields and queue message headers as text: JSON, UTF-8 or hex, capped.
import type { DeadLetterRecord, QueueMessage } from '@respire/admin';
import { bytes, count, preview, shown, shownText } from '../format.js';
import { RENDER_CAP_BYTES, renderBytes, type RenderedBytes } from '../payload.js';
import { Name } from './name.js';

/** Payloads and stream fields: JSON, UTF-8 text or hex, capped, always as text. */

/**
 * A value as text, with its kind and size. With `download` (a link that answers the raw bytes)
 * it offers the whole value as a file and, where the page's script runs, a Copy button for the
 * text shown.
 */
export function Rendered({
  rendered,
  label,
  download,
  kind,
}: {
  rendered: RenderedBytes;
  label?: string;
  download?: string | undefined;
  /** The tag to show instead of the rendering's kind. */
  kind?: string;
}) {
  return (
    <div class="payload">
      <div class="payload-meta">
        <span class="tag">{kind ?? (rendered.kind === 'json' ? 'JSON' : rendered.kind === 'text' ? 'UTF-8 text' : 'hex (not valid UTF-8)')}</span>
        <span class="muted small">{bytes(rendered.totalBytes)}</span>
        {rendered.truncated ? (
          <span class="notice-inline warn">
            Showing the first {bytes(rendered.shownBytes)} of {bytes(rendered.totalBytes)}
          </span>
        ) : null}
        {download ? (
          <>
            <button type="button" class="button small secondary copy" hidden data-copy="">
              Copy
            </button>
            <a class="button small secondary" href={download} download="">
              Download{rendered.truncated ? ' all' : ''}
            </a>
          </>
        ) : null}
      </div>
      {/* A value that may scroll (the box stops at 420 px) takes the keyboard focus, so it can be scrolled without a mouse. */}
      <pre aria-label={label} tabindex={mayScroll(rendered.text) ? 0 : undefined}>
        {shownText(rendered.text)}
      </pre>
    </div>
  );
}

/** Whether a value's box may scroll: more text than 420 px hold, even wrapped at a phone's width (about 40 characters a line). */
const mayScroll = (text: string) => text.length > 600 || text.split('\n').length > 12;

function fieldName(name: Buffer): string {
  const r = renderBytes(name, 1024);
  return r.kind === 'hex' ? `0x${name.subarray(0, 256).toString('hex')}` : shown(r.text);
}

/** A field name on a page: marked like every name when it is text, hex otherwise. */
function FieldName({ name }: { name: Buffer }) {
  const r = renderBytes(name, 1024);
  return r.kind === 'hex' ? <>{`0x${name.subarray(0, 256).toString('hex')}`}</> : <Name value={r.text} />;
}

/** A page shows at most this many fields of a record or entry… */
const MAX_FIELDS = 200;
/** …and at most this much text of their values (each value is also capped at 64 KiB). */
const PAGE_TEXT_BUDGET = 1024 * 1024;

/** Fields of a record or entry; `download(i)` links the raw bytes of field i's value. */
export function Fields({ fields, download }: { fields: readonly (readonly [Buffer, Buffer])[]; download?: (index: number) => string }) {
  if (fields.length === 0) return <p class="empty">No fields.</p>;
  let budget = PAGE_TEXT_BUDGET;
  const rows = [];
  for (const [name, value] of fields) {
    if (rows.length === MAX_FIELDS || budget <= 0) break;
    const rendered = renderBytes(value, Math.min(RENDER_CAP_BYTES, budget));
    budget -= rendered.text.length;
    rows.push(
      <tr>
        <th scope="row">
          <code>
            <FieldName name={name} />
          </code>
        </th>
        <td>
          <Rendered rendered={rendered} download={download?.(rows.length)} />
        </td>
      </tr>,
    );
  }
  return <NameValueTable rows={rows} left={fields.length - rows.length} noun="field" />;
}

/**
 * A capped table of names and values (a record's fields, a message's headers), and how many rows
 * the caps left out: at most {@link MAX_FIELDS} rows and 1 MiB of their values.
 */
function NameValueTable({ rows, left, noun }: { rows: unknown[]; left: number; noun: 'field' | 'header' }) {
  return (
    <>
      <table class={noun === 'field' ? 'fields' : 'fields headers'}>
        <thead>
          <tr>
            <th scope="col">{noun === 'field' ? 'Field' : 'Header'}</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
      {left > 0 ? (
        <p class="notice warn">
          {count(left)} more {noun}s are not shown: a page shows at most {MAX_FIELDS} {noun}s and 1 MiB of their values.
        </p>
      ) : null}
    </>
  );
}

/**
 * A queue message's headers (the queue README's "Headers") as a table of name and value. A string
 * value is shown as its text; a bytes value as a payload is (JSON, UTF-8 text or hex). Each value is
 * capped like a payload (64 KiB, the most the queue's format lets all of a message's headers take),
 * and the table like a record's fields (200 rows, 1 MiB of text), for headers another writer made.
 */
export function HeadersTable({ headers }: { headers: NonNullable<QueueMessage['headers']> }) {
  const names = Object.keys(headers);
  if (names.length === 0) return <p class="empty">No headers.</p>;
  let budget = PAGE_TEXT_BUDGET;
  const rows = [];
  for (const name of names) {
    if (rows.length === MAX_FIELDS || budget <= 0) break;
    const value = headers[name]!;
    const isString = typeof value === 'string';
    const rendered = renderBytes(isString ? Buffer.from(value, 'utf8') : value, Math.min(RENDER_CAP_BYTES, budget));
    budget -= rendered.text.length;
    rows.push(
      <tr>
        <th scope="row">
          <code>
            <Name value={name} />
          </code>
        </th>
        <td>
          {isString ? (
            // A string is shown as it was sent, never re-indented as JSON (only a whole value parses as JSON).
            <Rendered rendered={{ ...rendered, kind: 'text', text: rendered.kind === 'json' ? value : rendered.text }} kind="string" />
          ) : (
            <Rendered
              rendered={rendered}
              kind={rendered.kind === 'hex' ? 'bytes, hex (not valid UTF-8)' : `bytes, ${rendered.kind === 'json' ? 'JSON' : 'UTF-8 text'}`}
            />
          )}
        </td>
      </tr>,
    );
  }
  return <NameValueTable rows={rows} left={names.length - rows.length} noun="header" />;
}

/** A list's headers cell: the names, on one line; "none"; or "unreadable". */
export function headerNames(headers: QueueMessage['headers']): string {
  if (headers === null) return 'unreadable';
  const names = Object.keys(headers);
  return names.length === 0 ? 'none' : shown(preview(names.join(', '), 60));
}

/** One line of a dead letter's payload or first fields, for the list. */
export function recordPreview(record: DeadLetterRecord): string {
  if (record.kind === 'queue') {
    const r = renderBytes(record.payload, 512);
    return r.kind === 'hex' ? `${bytes(record.payload.length)} of binary data` : shown(preview(r.text));
  }
  return shown(
    preview(
      record.fields
        .slice(0, 4)
        .map(([name, value]) => {
          const r = renderBytes(value, 128);
          return `${fieldName(name)}=${r.kind === 'hex' ? `(${bytes(value.length)} binary)` : r.text}`;
        })
        .join('  '),
    ),
  );
}
