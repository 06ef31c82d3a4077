// A reply deadline for a command already written: an unanswered command rejects with an unknown outcome.
import { RespireTransportError } from './errors.js';

/** Extra time after a command's timeout before it counts as written and unanswered (ms). */
const WRITTEN_MARGIN_MS = 50;

/** The cause of a deadline that expired after the command was written (see `isConnectionFailure`). */
class ReplyDeadlineError extends Error {
  override name = 'ReplyDeadlineError';
}

/**
 * node-redis rejects a command still waiting to be written when its timeout expires (a
 * `TimeoutError`: not sent) and drops the timeout once the command is written. A written command
 * that gets no reply is rejected here, a little after that timeout, with an unknown outcome (a
 * `RespireTransportError` that `isConnectionFailure` recognises). A command sent with `timeoutMs: 0`
 * (no timer at all, e.g. a blocking read) can keep its own deadline with this.
 * @param stillHeld - asked each time the deadline expires: true when the server is known to still
 *   hold the command (paused, or behind a long script), and the wait goes on for another
 *   `timeoutMs`; false (or a rejection) ends it as above.
 */
export function replyWithin<R>(reply: Promise<R>, timeoutMs: number, operation: string, stillHeld?: () => Promise<boolean>): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const deadline = new Promise<never>((_, reject) => {
    const expire = () => {
      if (settled) return;
      const message = `${operation}: no reply within ${timeoutMs} ms after the command was written; the outcome is unknown`;
      reject(new RespireTransportError(message, { cause: new ReplyDeadlineError(`no reply within ${timeoutMs} ms`) }));
    };
    const arm = () => {
      timer = setTimeout(expired, Math.min(timeoutMs + WRITTEN_MARGIN_MS, 2_147_483_647)); // a longer timer would fire at once
    };
    const expired = () => {
      if (stillHeld === undefined) return expire();
      stillHeld().then((held) => (settled ? undefined : held ? arm() : expire()), expire);
    };
    arm();
  });
  reply.catch(() => {}); // settles after the deadline won: nobody waits for it any more
  return Promise.race([reply, deadline]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}
