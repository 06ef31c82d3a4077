// The one-line notices a page shows after an action redirected to it (parameters `n` and `n.*`).
import { count } from './format.js';
import { ENTRY_ID } from './http.js';
import type { Notice } from './views/layout.js';

const COUNT = /^\d{1,15}$/;

/** The query parameters of a notice: `n` names it, `n.<field>` carry its IDs and counts. */
export function noticeParams(kind: string, fields: Readonly<Record<string, string | number | undefined>> = {}): Record<string, string | number | undefined> {
  const out: Record<string, string | number | undefined> = { n: kind };
  for (const [name, value] of Object.entries(fields)) out[`n.${name}`] = value;
  return out;
}

/**
 * The notice a page shows after an action redirected to it: fixed templates that name only
 * well-formed entry IDs and counts from the URL. A link someone made up with other text in them
 * (`n.record=Your session expired…`) shows no notice at all.
 */
export function noticeOf(q: Record<string, string>): Notice {
  const id = (name: string) => (ENTRY_ID.test(q[`n.${name}`] ?? '') ? q[`n.${name}`] : undefined);
  const n = (name: string, fallback?: number) => (COUNT.test(q[`n.${name}`] ?? '') ? Number(q[`n.${name}`]) : fallback);
  switch (q['n']) {
    case 'retried': {
      const [record, newId] = [id('record'), id('newId')];
      return record && newId ? { kind: 'ok', text: `Retried dead letter ${record}: appended again as entry ${newId}.` } : undefined;
    }
    case 'subscription-retried': {
      const [record, publication] = [id('record'), id('publication')];
      return record && publication
        ? { kind: 'ok', text: `Retried dead letter ${record}: publication ${publication} is due again for this subscription only.` }
        : undefined;
    }
    case 'subscription-retry-all': {
      const [done, failed] = [n('done'), n('failed', 0)];
      if (done === undefined || failed === undefined) return undefined;
      return {
        kind: failed > 0 ? 'warn' : 'ok',
        text: `Retried ${count(done)} dead letter${done === 1 ? '' : 's'} for this subscription only${failed > 0 ? `; left ${count(failed)} that Respire did not write` : ''}.`,
      };
    }
    case 'grouped-retry-all': {
      const [done, failed] = [n('done'), n('failed', 0)];
      if (done === undefined || failed === undefined) return undefined;
      return {
        kind: failed > 0 ? 'warn' : 'ok',
        text: `Retried ${count(done)} dead letter${done === 1 ? '' : 's'} to the end of their groups${failed > 0 ? `; left ${count(failed)} without a group` : ''}.`,
      };
    }
    case 'grouped-delete-all':
    case 'subscription-delete-all': {
      const done = n('done');
      return done === undefined ? undefined : { kind: 'ok', text: `Deleted ${count(done)} dead letter${done === 1 ? '' : 's'}.` };
    }
    case 'deleted': {
      const record = id('record');
      return record ? { kind: 'ok', text: `Deleted dead letter ${record}.` } : undefined;
    }
    case 'released': {
      const entry = id('entry');
      return entry ? { kind: 'ok', text: `Released entry ${entry}: any worker's next recovery claims it now.` } : undefined;
    }
    case 'acked': {
      const entry = id('entry');
      if (!entry) return undefined;
      const kept = n('kept', 0)!;
      return {
        kind: 'ok',
        text:
          q['n.deleted'] === '1'
            ? `Acknowledged entry ${entry} and deleted it from the stream.`
            : kept > 0
              ? `Acknowledged entry ${entry}; it was kept in the stream: ${count(kept)} other group${kept === 1 ? '' : 's'} still need${kept === 1 ? 's' : ''} it.`
              : `Acknowledged entry ${entry}.`,
      };
    }
    case 'message-released': {
      const entry = id('entry');
      return entry ? { kind: 'ok', text: `Released message ${entry}: due now, the next receive redelivers it.` } : undefined;
    }
    case 'message-deleted': {
      const entry = id('entry');
      return entry ? { kind: 'ok', text: `Deleted message ${entry}: acknowledged for good.` } : undefined;
    }
    case 'seeked': {
      const position = q['n.position'] === '0' ? '0' : id('position');
      const discarded = n('discarded');
      if (position === undefined || discarded === undefined) return undefined;
      return {
        kind: 'ok',
        text: `Moved the subscription to ${position === '0' ? 'the earliest retained publication' : `after entry ${position}`}; discarded ${count(discarded)} lease${discarded === 1 ? '' : 's'}.`,
      };
    }
    case 'removed-consumers': {
      const [removed, kept] = [n('n'), n('kept', 0)];
      if (removed === undefined || kept === undefined) return undefined;
      return {
        kind: 'ok',
        text: `${removed === 0 ? 'No idle consumer without pending entries: none removed' : `Removed ${count(removed)} idle consumer${removed === 1 ? '' : 's'}`}${kept > 0 ? `; kept ${count(kept)} that still hold pending entries` : ''}.`,
      };
    }
    case 'job-cancel':
      return { kind: 'ok', text: 'Asked the job to stop: it stops after its current page.' };
    case 'job-resumed':
      return { kind: 'ok', text: 'Resumed the job in this dashboard.' };
    default:
      return undefined;
  }
}
