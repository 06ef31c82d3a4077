// A partitioned sendMany whose calls to some partitions failed after others appended their items
// (README "Scaling past one master"): the caller must learn which items were sent.
import { RespireError, isRespireError } from '@respire/core-scripts';

/** One item's outcome in a {@link RespirePartialSendError}: what its partition's call returned. */
export interface PartialSendItem {
  /** The entry ID in its partition, when that partition's call succeeded (or a duplicate's original). */
  readonly id: string;
  readonly duplicate: boolean;
  readonly partition: number;
}

/**
 * A partitioned `sendMany` spanned several partitions and the calls to some failed while others
 * succeeded: the items in `results` were appended (or found to be duplicates), the others (undefined
 * there) met the error of their partition's call, which may or may not have run. Never `retryable`,
 * whatever the failures were, because part of the call ran: resend only the missing items, with
 * deduplication IDs where a failure's outcome is unknown. `code` and `cause` are the first failure's.
 */
export class RespirePartialSendError extends RespireError {
  override name = 'RespirePartialSendError';
  /** Per item, in the order given: its result when its partition's call succeeded, else undefined. */
  readonly results: readonly (PartialSendItem | undefined)[];
  /** The partitions whose call failed, ascending. */
  readonly failedPartitions: readonly number[];

  constructor(results: readonly (PartialSendItem | undefined)[], failures: ReadonlyMap<number, unknown>) {
    const [first] = [...failures.values()];
    const reason = first instanceof Error ? first.message : String(first);
    const failed = [...failures.keys()].sort((a, b) => a - b);
    const sent = results.filter((result) => result !== undefined).length;
    super(
      isRespireError(first) ? first.code : 'SERVER_ERROR',
      `sendMany: ${sent} of ${results.length} items were sent, but the calls to partition${failed.length === 1 ? '' : 's'} ` +
        `${failed.join(', ')} failed (${reason}); \`results\` says which items were sent: resend only the others`,
      { cause: first },
    );
    this.results = results;
    this.failedPartitions = failed;
  }
}
