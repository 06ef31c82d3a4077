// The page head and the bare document of sign-in and early refusals.
import type { Child } from 'hono/jsx';

/** The `<head>` of every page: charset, viewport, title, the stylesheet and icon, and `children` (more meta, the script). */
export function Head({ base, title, children }: { base: string; title: string; children?: Child }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} · Respire`}</title>
      <link rel="stylesheet" href={`${base}/assets/dashboard.css`} />
      <link rel="icon" href={`${base}/assets/favicon.svg`} type="image/svg+xml" />
      {children}
    </head>
  );
}

/**
 * A page without the dashboard's chrome and without any data: sign-in, 401/403 refusals and
 * errors before anyone is signed in. Only the stylesheet and icon of the base path.
 */
export function BareDocument({ base, title, heading = title, children }: { base: string; title: string; heading?: string; children?: Child }) {
  return (
    <html lang="en">
      <Head base={base} title={title} />
      <body>
        <main id="main" class="bare">
          <h1>{heading}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}
