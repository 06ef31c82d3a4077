// Line charts drawn on the server as SVG (no script, no inline style: the stylesheet colours them), with their numbers in a table.
import { count, duration, serverTime } from '../format.js';

/** One line: a label and a value per point (null leaves a gap). */
export interface Line {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

const W = 720;
const H = 200;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

/** A round upper bound for the y axis: 1, 2 or 5 times a power of ten. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

// A mid-axis tick can fall between whole numbers (half of 1 or 5): it keeps its fraction, never rounded onto a neighbour.
const axisNumber = (n: number, unit: 'rate' | 'count' | 'ms') =>
  unit === 'ms' ? duration(n) : n < 10 && !Number.isInteger(n) ? String(Math.round(n * 100) / 100) : count(Math.round(n));

/**
 * A chart of `lines` over `times` (ms, ascending), y from 0 to a round maximum; each line a
 * polyline per run of known values. The numbers follow in a table inside a disclosure.
 */
export function Chart({ title, times, lines, unit }: { title: string; times: readonly number[]; lines: readonly Line[]; unit: 'rate' | 'count' | 'ms' }) {
  const known = lines.flatMap((l) => l.values.filter((v): v is number => v !== null));
  const max = niceMax(Math.max(0, ...known));
  const t0 = times[0] ?? 0;
  const t1 = times[times.length - 1] ?? t0 + 1;
  const span = Math.max(1, t1 - t0);
  const x = (t: number) => PAD.left + ((t - t0) / span) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const runs = (values: readonly (number | null)[]) => {
    const out: string[][] = [];
    let run: string[] = [];
    values.forEach((v, i) => {
      if (v === null) {
        if (run.length) out.push(run);
        run = [];
      } else run.push(`${x(times[i]!).toFixed(1)},${y(v).toFixed(1)}`);
    });
    if (run.length) out.push(run);
    return out;
  };
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${title}: ${lines.map((l) => l.label).join(', ')}, ${known.length === 0 ? 'no data' : `up to ${axisNumber(Math.max(...known), unit)}`}`}
      >
        <line class="axis" x1={PAD.left} y1={H - PAD.bottom} x2={W - PAD.right} y2={H - PAD.bottom} />
        <line class="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={H - PAD.bottom} />
        <line class="grid" x1={PAD.left} y1={y(max / 2)} x2={W - PAD.right} y2={y(max / 2)} />
        <text class="tick" x={PAD.left - 6} y={PAD.top + 4} text-anchor="end">
          {axisNumber(max, unit)}
        </text>
        <text class="tick" x={PAD.left - 6} y={y(max / 2) + 4} text-anchor="end">
          {axisNumber(max / 2, unit)}
        </text>
        <text class="tick" x={PAD.left - 6} y={H - PAD.bottom + 4} text-anchor="end">
          0
        </text>
        <text class="tick" x={PAD.left} y={H - 8}>
          {times.length ? serverTime(t0).slice(11, 19) : ''}
        </text>
        <text class="tick" x={W - PAD.right} y={H - 8} text-anchor="end">
          {times.length ? serverTime(t1).slice(11, 19) : ''}
        </text>
        {lines.map((line, i) =>
          runs(line.values).map((points) =>
            points.length === 1 ? (
              <circle class={`series s${i}`} cx={points[0]!.split(',')[0]} cy={points[0]!.split(',')[1]} r="2.5" />
            ) : (
              <polyline class={`series s${i}`} points={points.join(' ')} />
            ),
          ),
        )}
      </svg>
      <ul class="legend">
        {lines.map((line, i) => (
          <li>
            <span class={`swatch s${i}`} aria-hidden="true"></span>
            {line.label}
          </li>
        ))}
      </ul>
      <details class="numbers">
        <summary>Numbers</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Time (server)</th>
                {lines.map((l) => (
                  <th scope="col" class="num">
                    {l.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((t, i) => (
                <tr>
                  <th scope="row">{serverTime(t)}</th>
                  {lines.map((l) => (
                    <td class="num">
                      {l.values[i] === null || l.values[i] === undefined ? '–' : unit === 'rate' ? l.values[i]!.toFixed(2) : axisNumber(l.values[i]!, unit)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
