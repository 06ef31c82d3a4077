// The one-line notices a page shows after an action redirected to it.
import { count } from './format.js';
import { ENTRY_ID } from './http.js';
import type { Notice } from './views/layout.js';

const COUNT = /^\d{1,15}$/;

/**
 * The notice a page shows after an action redirected to it: fixed templates that name only
 * well-formed entry IDs and counts from the URL. A link someone made up with other text in them
 * (`record=Your session expired…`) shows no notice at all.
 */
export function noticeOf(q: Record<string, string>): Notice {
  const id = (name: string) => (ENTRY_ID.test(q[name] ?? '') ? q[name] : undefined);
  const n = (name: string, fallback?: number) => (COUNT.test(q[name] ?? '') ? Number(q[name]) : fallback);
  switch (q['done']) {
    case 'retried': {
      const [record, newId] = [id('record'), id('newId')];
      return record && newId ? { kind: 'ok', text: `Retried dead letter ${record}: appended again as entry ${newId}.` } : undefined;
    }
    case 'deleted': {
      const record = id('record');
      return record ? { kind: 'ok', text: `Deleted dead letter ${record}.` } : undefined;
    }
    case 'retried-all':
    case 'deleted-all': {
      const [done, failed, remain] = [n('n'), n('failed', 0), n('remain', 0)];
      if (done === undefined || failed === undefined || remain === undefined) return undefined;
      const verb = q['done'] === 'retried-all' ? 'Retried' : 'Deleted';
      return {
        kind: failed > 0 ? 'warn' : 'ok',
        text: `${verb} ${count(done)} dead letters${failed > 0 ? `, ${count(failed)} failed` : ''}. ${remain > 0 ? `${count(remain)} remain: run it again to continue.` : 'None remain.'}`,
      };
    }
    case 'released': {
      const entry = id('entry');
      return entry ? { kind: 'ok', text: `Released entry ${entry} for redelivery.` } : undefined;
    }
    case 'acked': {
      const entry = id('entry');
      return entry ? { kind: 'ok', text: `Acknowledged entry ${entry}${q['deleted'] === '1' ? ' and deleted it from the stream' : ''}.` } : undefined;
    }
    case 'removed-consumers': {
      const [removed, kept] = [n('n'), n('kept', 0)];
      if (removed === undefined || kept === undefined) return undefined;
      return { kind: 'ok', text: `Removed ${count(removed)} idle consumers${kept > 0 ? `; kept ${count(kept)} that still hold pending entries` : ''}.` };
    }
    default:
      return undefined;
  }
}
