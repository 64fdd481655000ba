/**
 * Line charts of report figures, drawn by uPlot on a canvas (docs/DECISIONS.md says why uPlot).
 * The reports page imports this module dynamically, so uPlot is its own chunk: neither the
 * members' pages nor the rest of the admin console download it.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  name: string;
  values: number[];
}

/** Colours that stay apart for readers with red-green colour blindness (Okabe-Ito). */
const colours = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#000000', '#f0e442'];

export interface Chart {
  /** Redraws at the container's width. */
  resize(): void;
  destroy(): void;
}

/** Draws the series over the periods (labels on the x axis) into the container. */
export function drawChart(
  container: HTMLElement,
  labels: string[],
  series: ChartSeries[],
  unit: string,
): Chart {
  const width = () => Math.max(200, container.clientWidth);
  const plot = new uPlot(
    {
      width: width(),
      height: 220,
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? (labels[t] ?? '') : '')),
          space: 60,
        },
        { label: unit, size: 56 },
      ],
      series: [
        { label: 'Period', value: (_u, v) => (v === null ? '' : (labels[v] ?? '')) },
        ...series.map((s, i) => ({
          label: s.name,
          stroke: colours[i % colours.length],
          width: 2,
          points: { show: true, size: 6 },
        })),
      ],
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
    },
    [labels.map((_, i) => i), ...series.map((s) => s.values)],
    container,
  );
  return {
    resize: () => plot.setSize({ width: width(), height: 220 }),
    destroy: () => plot.destroy(),
  };
}
