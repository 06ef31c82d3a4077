// renderBytes: the admin API's rendering of bytes, capped for a page.
import { describeBytes, type PayloadView } from '@respire/admin';

/** How many bytes of one payload or field value a page renders (the admin helper's default cap). */
export const RENDER_CAP_BYTES = 64 * 1024;

export interface RenderedBytes extends PayloadView {
  /** Bytes the text shows (at most the cap). */
  readonly shownBytes: number;
}

/** The admin API's rendering (JSON, UTF-8 text or hex), capped, with how much it shows. */
export function renderBytes(bytes: Uint8Array, capBytes = RENDER_CAP_BYTES): RenderedBytes {
  const view = describeBytes(bytes, { maxBytes: capBytes });
  return { ...view, shownBytes: Math.min(view.totalBytes, capBytes) };
}
