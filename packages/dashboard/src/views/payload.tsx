import type { DeadLetterRecord } from '@respire/admin';
import { bytes, preview } from '../format.js';
import { renderBytes, type RenderedBytes } from '../payload.js';

/** Payloads and stream fields: JSON, UTF-8 text or hex, capped, always as text. */

export function Rendered({ rendered, label }: { rendered: RenderedBytes; label?: string }) {
  return (
    <div class="payload">
      <div class="payload-meta">
        <span class="tag">{rendered.kind === 'json' ? 'JSON' : rendered.kind === 'text' ? 'UTF-8 text' : 'hex (not valid UTF-8)'}</span>
        <span class="muted small">{bytes(rendered.totalBytes)}</span>
        {rendered.truncated ? (
          <span class="notice-inline warn">
            Showing the first {bytes(rendered.shownBytes)} of {bytes(rendered.totalBytes)}
          </span>
        ) : null}
      </div>
      <pre aria-label={label}>{rendered.text}</pre>
    </div>
  );
}

function fieldName(name: Buffer): string {
  const r = renderBytes(name, 1024);
  return r.kind === 'hex' ? `0x${name.subarray(0, 256).toString('hex')}` : r.text;
}

export function Fields({ fields }: { fields: readonly (readonly [Buffer, Buffer])[] }) {
  if (fields.length === 0) return <p class="empty">No fields.</p>;
  return (
    <table class="fields">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {fields.map(([name, value]) => (
          <tr>
            <th scope="row"><code>{fieldName(name)}</code></th>
            <td><Rendered rendered={renderBytes(value)} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One line of a dead letter's payload or first fields, for the list. */
export function recordPreview(record: DeadLetterRecord): string {
  if (record.kind === 'queue') {
    const r = renderBytes(record.payload, 512);
    return r.kind === 'hex' ? `${bytes(record.payload.length)} of binary data` : preview(r.text);
  }
  return preview(
    record.fields
      .slice(0, 4)
      .map(([name, value]) => {
        const r = renderBytes(value, 128);
        return `${fieldName(name)}=${r.kind === 'hex' ? `(${bytes(value.length)} binary)` : r.text}`;
      })
      .join('  '),
  );
}
