import { count } from './format.js';
import type { Notice } from './views/layout.js';

/** The notice a page shows after an action redirected to it: fixed templates with the IDs as text. */
export function noticeOf(q: Record<string, string>): Notice {
  switch (q['done']) {
    case 'retried':
      return { kind: 'ok', text: `Retried dead letter ${q['record'] ?? ''}: appended again as entry ${q['newId'] ?? ''}.` };
    case 'deleted':
      return { kind: 'ok', text: `Deleted dead letter ${q['record'] ?? ''}.` };
    case 'retried-all':
    case 'deleted-all': {
      const verb = q['done'] === 'retried-all' ? 'Retried' : 'Deleted';
      const failed = Number(q['failed'] ?? 0);
      const remain = Number(q['remain'] ?? 0);
      return {
        kind: failed > 0 ? 'warn' : 'ok',
        text: `${verb} ${count(Number(q['n'] ?? 0))} dead letters${failed > 0 ? `, ${count(failed)} failed` : ''}. ${remain > 0 ? `${count(remain)} remain: run it again to continue.` : 'None remain.'}`,
      };
    }
    case 'released':
      return { kind: 'ok', text: `Released entry ${q['entry'] ?? ''} for redelivery.` };
    case 'acked':
      return { kind: 'ok', text: `Acknowledged entry ${q['entry'] ?? ''}${q['deleted'] === '1' ? ' and deleted it from the stream' : ''}.` };
    case 'removed-consumers':
      return {
        kind: 'ok',
        text: `Removed ${count(Number(q['n'] ?? 0))} idle consumers${Number(q['kept'] ?? 0) > 0 ? `; kept ${count(Number(q['kept']))} that still hold pending entries` : ''}.`,
      };
    default:
      return undefined;
  }
}
