// Stacked-bar time series with uPlot (canvas; styles from uPlot's own CSS file): hook runs per bucket by series.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const PALETTE = ['#2f6fdf', '#d9480f', '#2b8a3e', '#ae3ec9', '#f59f00', '#0c8599', '#e03131', '#5c7cfa', '#868e96'];

export interface SeriesData {
  label: string;
  values: number[];
}

// Cumulative sums so that each series is drawn on top of the previous one.
function stack(series: SeriesData[]): number[][] {
  const out: number[][] = [];
  let acc: number[] | null = null;
  for (const s of series) {
    const next: number[] = s.values.map((v, i) => v + (acc ? acc[i]! : 0));
    out.push(next);
    acc = next;
  }
  return out;
}

/** What a click or a drag on the chart picked: one bar (and the series under the pointer), or a time range. */
export type Pick = { kind: 'bar'; index: number; series: number | null } | { kind: 'range'; from: number; to: number };

export function StackedBars({
  times,
  series,
  height = 240,
  label,
  onPick,
}: {
  times: number[];
  series: SeriesData[];
  height?: number;
  label: string;
  /** Called with the bar clicked or the time range dragged over (seconds). */
  onPick?: (pick: Pick) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const pickRef = useRef(onPick);
  pickRef.current = onPick;
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const stacked = stack(series);
    const bars = uPlot.paths.bars!({ size: [0.7, 40] });
    // Draw the tallest (cumulative) first so lower series paint over it.
    const order = series.map((_, i) => i).reverse();
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: true, y: false, setScale: false } },
      hooks: {
        // A drag selects a time range; a click (no width) picks the bar under the pointer and its series.
        setSelect: [
          (u: uPlot) => {
            const { left, width } = u.select;
            if (width > 4) {
              pickRef.current?.({ kind: 'range', from: u.posToVal(left, 'x'), to: u.posToVal(left + width, 'x') });
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            }
          },
        ],
      },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [
        { stroke: '#5b6472', grid: { stroke: '#eef0f3' } },
        { stroke: '#5b6472', grid: { stroke: '#eef0f3' } },
      ],
      series: [
        {},
        ...order.map((i) => ({
          label: series[i]!.label,
          stroke: PALETTE[i % PALETTE.length],
          fill: PALETTE[i % PALETTE.length],
          paths: bars,
          points: { show: false },
          value: (_u: uPlot, _v: number | null, _si: number, idx: number | null) =>
            idx === null ? '—' : String(series[i]!.values[idx] ?? 0),
        })),
      ],
    };
    const data: uPlot.AlignedData = [times, ...order.map((i) => stacked[i]!)];
    const plot = new uPlot(opts, data, el);
    const onClick = () => {
      const idx = plot.cursor.idx;
      if (idx === null || idx === undefined || plot.select.width > 4) return;
      const y = plot.posToVal(plot.cursor.top ?? 0, 'y');
      const hit = stacked.findIndex((vals) => (vals[idx] ?? 0) >= y);
      pickRef.current?.({ kind: 'bar', index: idx, series: hit < 0 ? null : hit });
    };
    plot.over.addEventListener('click', onClick);
    if (pickRef.current) plot.over.style.cursor = 'pointer';
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      plot.over.removeEventListener('click', onClick);
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, height]);
  return <div ref={host} className="chart" role="img" aria-label={label} />;
}
