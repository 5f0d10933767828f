/**
 * A small bar chart drawn on the server as inline SVG (no chart library, no client JavaScript).
 * The SVG is decoration for sighted readers; the same numbers are in a table that screen readers
 * read instead. Bar heights are computed from bigint ratios: amounts never pass through a float.
 */
export interface Bar {
  /** The day, YYYY-MM-DD. */
  label: string;
  value: bigint;
  /** The value as shown: "12", "4.99 USDC". */
  text: string;
}

const BAR_WIDTH = 10;
const GAP = 2;
const HEIGHT = 100;

export function BarChart({ title, valueHeading, bars, testId }: { title: string; valueHeading: string; bars: Bar[]; testId?: string }) {
  const max = bars.reduce((m, bar) => (bar.value > m ? bar.value : m), 0n);
  const width = bars.length * BAR_WIDTH;
  return (
    <figure className="flex flex-col gap-2" data-testid={testId}>
      <figcaption className="text-sm font-medium text-slate-800">{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" className="h-28 w-full rounded bg-slate-50">
        {bars.map((bar, index) => {
          const height = barHeight(bar.value, max);
          return (
            <rect
              key={bar.label}
              x={index * BAR_WIDTH + GAP / 2}
              y={HEIGHT - height}
              width={BAR_WIDTH - GAP}
              height={height}
              className="fill-brand-500"
            >
              <title>{`${bar.label}: ${bar.text}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="flex justify-between text-xs text-slate-500" aria-hidden="true">
        <span>{bars[0]?.label}</span>
        <span>{bars.at(-1)?.label}</span>
      </div>
      {/* On a wrapper: a table will not shrink to sr-only's 1 px and would widen the page. */}
      <div className="sr-only">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">{valueHeading}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar) => (
              <tr key={bar.label}>
                <th scope="row">{bar.label}</th>
                <td>{bar.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** Height in chart units (0–100); a non-zero day is at least 2 units so it stays visible. */
function barHeight(value: bigint, max: bigint): number {
  if (value <= 0n || max <= 0n) return 0;
  const scaled = Number((value * BigInt(HEIGHT)) / max);
  return Math.max(2, scaled);
}
